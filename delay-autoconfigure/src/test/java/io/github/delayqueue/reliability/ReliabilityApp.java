package io.github.delayqueue.reliability;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.it.JournalingHandlers;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The application the fault suite runs: handlers that write every start and end to the test's {@link Journal},
 * which lives outside the queue, and misbehave on purpose when asked to.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableDelayQueue
public class ReliabilityApp {

    /** A typed payload. */
    public record Parcel(long id, String to) {
    }

    @Bean
    Handlers reliabilityHandlers(Journal journal, ObjectProvider<DelayQueueRuntime> engine,
            ObjectProvider<DataSource> dataSource) {
        return new Handlers(journal, engine, dataSource);
    }

    /** Handlers by behaviour. */
    public static class Handlers extends JournalingHandlers {

        /** Share of "rel.work" attempts that throw. */
        public static volatile double failureRate = 0.10;

        /** The instance id on which "rel.commit-then-crash" and "rel.write-then-crash" hang once they wrote. */
        public static final String CRASH_VICTIM = "crash-victim";

        /** "rel.forever" blocks on this until the test ends. */
        public static final CountDownLatch forever = new CountDownLatch(1);

        private final ObjectProvider<DataSource> dataSource;

        Handlers(Journal journal, ObjectProvider<DelayQueueRuntime> engine, ObjectProvider<DataSource> dataSource) {
            super(journal, engine);
            this.dataSource = dataSource;
        }

        /** Does a little work; a tenth of the attempts throw and are retried. */
        @DelayedHandler(type = "rel.work", maxAttempts = 10, backoff = "500ms", multiplier = "1")
        void work(String payload, TaskContext context) throws InterruptedException {
            Journal.Start start = record(context, payload);
            try {
                if (ThreadLocalRandom.current().nextDouble() < failureRate) {
                    throw new IllegalStateException("injected failure of task " + context.id());
                }
            }
            finally {
                start.end();
            }
        }

        /**
         * Sleeps for the payload's milliseconds, so a crash finds it running; stops when interrupted, and the journal
         * says so.
         */
        @DelayedHandler(type = "rel.sleep", maxAttempts = 5)
        void sleep(long millis, TaskContext context) throws InterruptedException {
            Journal.Start start = record(context, millis);
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                start.endInterrupted();
                throw ex;
            }
            start.end();
        }

        /** One at a time per instance, and never retried: what is claimed waits, and a lost task is dead. */
        @DelayedHandler(type = "rel.single", maxAttempts = 1, concurrency = 1)
        void single(long millis, TaskContext context) throws InterruptedException {
            sleep(millis, context);
        }

        /**
         * Runs for the payload's milliseconds and guards its writes with the fencing token, as a handler should: a
         * row {@code rel_fence(task_id, token)} the test created holds the highest token that wrote, and every write
         * attempt is logged in {@code rel_fence_log(task_id, token, instance, accepted)}. It writes when it starts
         * and again when it ends, interrupted or not. One at a time per instance, so that what an instance claimed
         * beyond the first waits there, claimed.
         */
        @DelayedHandler(type = "rel.fenced", maxAttempts = 5, concurrency = 1)
        void fenced(long millis, TaskContext context) throws InterruptedException {
            Journal.Start start = record(context, millis);
            try {
                fencedWrite(context);
                Thread.sleep(millis);
            }
            finally {
                start.end();
                fencedWrite(context);
            }
        }

        private void fencedWrite(TaskContext context) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource.getObject());
            int accepted = jdbc.update("UPDATE rel_fence SET token = ? WHERE task_id = ? AND token <= ?",
                    context.fencingToken(), context.id(), context.fencingToken());
            jdbc.update("INSERT INTO rel_fence_log (task_id, token, instance, accepted) VALUES (?, ?, ?, ?)",
                    context.id(), context.fencingToken(), instance(), accepted);
        }

        @DelayedHandler(type = "rel.typed")
        void typed(Parcel parcel, TaskContext context) {
            record(context, parcel == null ? "null" : parcel).end();
        }

        @DelayedHandler(type = "rel.any")
        void any(Object payload, TaskContext context) {
            record(context, payload == null ? "null" : payload).end();
        }

        @DelayedHandler(type = "rel.error", maxAttempts = 1)
        void error(String payload, TaskContext context) {
            record(context, payload).end();
            throw new OutOfMemoryError("injected Error, not an Exception");
        }

        @DelayedHandler(type = "rel.forever", maxAttempts = 1)
        void forever(String payload, TaskContext context) throws InterruptedException {
            record(context, payload);
            forever.await();
        }

        /**
         * Writes a row to {@code rel_effect} (which the test created) in its transaction, which the task's completion
         * joins; once that has committed, it hangs on the instance {@link #CRASH_VICTIM} until the test kills it: a
         * crash between the business commit and the end of the handler. Elsewhere it returns.
         */
        @Transactional
        @DelayedHandler(type = "rel.commit-then-crash", maxAttempts = 5)
        public void commitThenCrash(String payload, TaskContext context) {
            record(context, payload).end();
            effect(context);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    hangOnTheVictim();
                }
            });
        }

        /** As {@code rel.commit-then-crash}, without a transaction: its row is committed as it is written. */
        @DelayedHandler(type = "rel.write-then-crash", maxAttempts = 5)
        public void writeThenCrash(String payload, TaskContext context) {
            record(context, payload).end();
            effect(context);
            hangOnTheVictim();
        }

        private void effect(TaskContext context) {
            new JdbcTemplate(dataSource.getObject()).update(
                    "INSERT INTO rel_effect (task_id, attempt, instance) VALUES (?, ?, ?)", context.id(),
                    context.attempt(), instance());
        }

        /** Until SIGKILL, deaf to the interrupt of a lease that can no longer be renewed. */
        private void hangOnTheVictim() {
            while (instance().startsWith(CRASH_VICTIM)) {
                try {
                    forever.await();
                }
                catch (InterruptedException ex) {
                    // hang on
                }
            }
        }

        @DelayedHandler(type = "rel.interrupt", maxAttempts = 1)
        void interrupt(String payload, TaskContext context) {
            record(context, payload).end();
            Thread.currentThread().interrupt();
        }
    }
}
