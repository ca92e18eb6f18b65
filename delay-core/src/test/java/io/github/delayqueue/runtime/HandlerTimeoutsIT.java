package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link HandlerTimeoutScenarios} on the real table, in jdbc mode and with the real Redis index; and a handler that
 * completes in its transaction, which the timeout rolls back even when the handler swallows the interrupt and returns.
 */
class HandlerTimeoutsIT {

    @Nested
    class JdbcMode extends OnTheTable {

        @Override
        DelayQueueRuntimeBuilder builder() {
            return DelayQueueRuntime.builder(dataSource()).initializeSchema(true);
        }
    }

    @Nested
    class HybridMode extends OnTheTable {

        private @Nullable LettuceConnectionFactory redis;

        @Override
        DelayQueueRuntimeBuilder builder() {
            LettuceConnectionFactory factory = TestRedis.single();
            redis = factory;
            return DelayQueueRuntime.builder(dataSource())
                .initializeSchema(true)
                .timeIndex(new RedisTimeIndex(factory, TestServices.newKeyPrefix(), 2));
        }

        @AfterEach
        void closeRedis() {
            if (redis != null) {
                redis.destroy();
            }
        }
    }

    /** The scenarios, and a transactional handler's, on a fresh database of their own. */
    abstract static class OnTheTable extends HandlerTimeoutScenarios {

        private @Nullable DataSource dataSource;

        DataSource dataSource() {
            DataSource fresh = dataSource;
            if (fresh == null) {
                fresh = TestServices.newDatabase().dataSource();
                dataSource = fresh;
            }
            return fresh;
        }

        /**
         * The first attempt writes its ledger line, then sleeps past its timeout and, interrupted, returns as if done.
         * Without the timeout's rollback its transaction would commit the line and the task's success together.
         */
        @Test
        void aTransactionalHandlerOverItsTimeoutIsRolledBackAndItsRetryCommits() {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource());
            jdbc.execute("CREATE TABLE ledger (entry VARCHAR(50) NOT NULL, attempt INT NOT NULL)");
            DelayQueueRuntime runtime = start(builder().handlers(new Ledger(jdbc)));
            long id = runtime.queue().schedule("ledger.post", "invoice-7", Duration.ZERO);

            await().atMost(PATIENCE).until(() -> view(runtime, id).status() == TaskStatus.SUCCEEDED);
            TaskView task = view(runtime, id);
            assertThat(task.attempts()).isEqualTo(2);
            assertThat(task.errors()).singleElement().satisfies(failed -> assertThat(failed.error()).contains(
                    "Handler of type 'ledger.post' ran over its timeout of PT0.3S and was interrupted; its "
                            + "transaction was rolled back"));
            List<Map<String, Object>> lines = jdbc.queryForList("SELECT entry, attempt FROM ledger");
            assertThat(lines).as("the first attempt's line rolled back, the retry's committed")
                .containsExactly(Map.of("entry", "invoice-7", "attempt", 2));
        }
    }

    /** Posts a ledger line in the task's transaction. */
    static class Ledger {

        private final JdbcTemplate jdbc;

        Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DelayedHandler(type = "ledger.post", timeout = "300ms", backoff = "50ms", transactional = true)
        void post(String entry, TaskContext context) {
            jdbc.update("INSERT INTO ledger (entry, attempt) VALUES (?, ?)", entry, context.attempt());
            if (context.attempt() == 1) {
                try {
                    Thread.sleep(60_000);
                }
                catch (InterruptedException ex) {
                    // swallowed: the handler returns as if it had finished
                }
            }
        }
    }
}
