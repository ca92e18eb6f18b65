package io.github.delayqueue.it;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * An application whose handlers complete in their transactions: each writes a business row ({@code tx_effect}) on
 * the queue's DataSource, which the test counts. The table is created by the test.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableDelayQueue
public class TransactionalApp {

    @Bean
    Handlers transactionalHandlers(Journal journal, ObjectProvider<DelayQueueRuntime> engine, DataSource dataSource,
            ObjectProvider<DelayQueue> queue) {
        return new Handlers(journal, engine, dataSource, queue);
    }

    /** Handlers by behaviour. */
    public static class Handlers extends JournalingHandlers {

        /** The "tx.claim-lost" tasks whose claim was taken over once already, on any instance of the test. */
        private static final Set<Long> claimTaken = ConcurrentHashMap.newKeySet();

        private final DataSource dataSource;

        private final JdbcTemplate jdbc;

        private final ObjectProvider<DelayQueue> queue;

        Handlers(Journal journal, ObjectProvider<DelayQueueRuntime> engine, DataSource dataSource,
                ObjectProvider<DelayQueue> queue) {
            super(journal, engine);
            this.dataSource = dataSource;
            this.jdbc = new JdbcTemplate(dataSource);
            this.queue = queue;
        }

        /** Spring's {@code @Transactional} makes it complete in its transaction. */
        @Transactional
        @DelayedHandler(type = "tx.ok")
        public void ok(String payload, TaskContext context) {
            record(context, payload);
            effect(context);
        }

        /**
         * Writes its row and schedules a chained task, then fails its first attempt with a checked exception, which
         * a plain {@code @Transactional} would commit on: both must be rolled back.
         */
        @DelayedHandler(type = "tx.fail-once", transactional = true, maxAttempts = 3, backoff = "200ms",
                multiplier = "1")
        public void failOnce(String payload, TaskContext context) throws IOException {
            record(context, payload);
            effect(context);
            queue.getObject().schedule("tx.chained", context.id(), Duration.ZERO);
            if (context.attempt() == 1) {
                throw new IOException("injected failure of attempt 1 of task " + context.id());
            }
        }

        @DelayedHandler(type = "tx.chained")
        public void chained(long parent, TaskContext context) {
            record(context, parent);
        }

        /**
         * On its first run the task is claimed anew behind its back before the commit, on a connection of its
         * own, as another instance does once a lease runs out: the first run's work must not commit. The first run,
         * not attempt 1: when the new claim comes before the run's start was recorded, the run is not counted, and
         * the next one is attempt 1 again.
         */
        @DelayedHandler(type = "tx.claim-lost", transactional = true, maxAttempts = 3)
        public void claimLost(String payload, TaskContext context) throws SQLException {
            record(context, payload);
            effect(context);
            if (claimTaken.add(context.id())) {
                try (Connection other = dataSource.getConnection();
                        PreparedStatement claim = other.prepareStatement(
                                "UPDATE delay_task SET claims = claims + 1 WHERE id = ?")) {
                    other.setAutoCommit(true);
                    claim.setLong(1, context.id());
                    claim.executeUpdate();
                }
            }
        }

        /** Completes after it returns, as handlers do by default: at least once. */
        @DelayedHandler(type = "tx.plain")
        public void plain(String payload, TaskContext context) {
            record(context, payload);
            effect(context);
        }

        private void effect(TaskContext context) {
            jdbc.update("INSERT INTO tx_effect (task_id, attempt, instance) VALUES (?, ?, ?)", context.id(),
                    context.attempt(), instance());
        }
    }
}
