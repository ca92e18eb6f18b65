package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue without Spring Boot and without a Spring context: an application that builds it from a
 * {@link DataSource} and its handler objects, starts it, schedules and runs tasks, stops it, starts it again and
 * closes it; on the real database alone (jdbc mode) and with the real Redis index (hybrid mode).
 */
class DelayQueueRuntimeIT {

    @Test
    void aPlainApplicationBuildsStartsUsesAndClosesTheQueueInJdbcMode() {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        Reminders reminders = new Reminders();
        try (DelayQueueRuntime runtime = DelayQueueRuntime.builder(dataSource)
            .initializeSchema(true)
            .handlers(reminders)
            .pollInterval(Duration.ofMillis(50))
            .shutdownTimeout(Duration.ofSeconds(5))
            .build()) {
            assertThat(runtime.mode()).isEqualTo(DelayQueueRuntime.Mode.JDBC);
            long early = runtime.queue().schedule("reminder.send", "scheduled before the start", Duration.ZERO);
            runtime.start();
            runtime.queue().schedule("reminder.send", "after the start", Duration.ofMillis(200));
            await().atMost(Duration.ofSeconds(20))
                .until(() -> reminders.sent.containsAll(List.of("scheduled before the start", "after the start")));
            await().atMost(Duration.ofSeconds(10)).until(() -> runtime.queue().find(early).orElseThrow().status()
                    == TaskStatus.SUCCEEDED);

            runtime.stop();
            assertThat(runtime.isRunning()).isFalse();
            runtime.queue().schedule("reminder.send", "while stopped", Duration.ZERO);
            runtime.start();
            await("a restarted runtime runs tasks as after its first start").atMost(Duration.ofSeconds(20))
                .until(() -> reminders.sent.contains("while stopped"));
        }
    }

    @Test
    void aPlainApplicationRunsTheQueueInHybridModeOnItsOwnRedis() {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        LettuceConnectionFactory redis = TestRedis.single();
        Reminders reminders = new Reminders();
        try (DelayQueueRuntime runtime = DelayQueueRuntime.builder(dataSource)
            .initializeSchema(true)
            .timeIndex(new RedisTimeIndex(redis, TestServices.newKeyPrefix(), 2))
            .handlers(reminders)
            .shutdownTimeout(Duration.ofSeconds(5))
            .build()) {
            runtime.start();
            assertThat(runtime.mode()).isEqualTo(DelayQueueRuntime.Mode.HYBRID);
            assertThat(runtime.indexShards()).isEqualTo(2);
            long id = runtime.queue().schedule("reminder.send", "through Redis", Duration.ofMillis(300));
            assertThat(runtime.queue().find(id).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
            await().atMost(Duration.ofSeconds(20)).until(() -> reminders.sent.contains("through Redis"));
            assertThat(runtime.status().work()).extracting(DelayQueueRuntime.Work::name).contains("lease renewal");
        }
        finally {
            redis.destroy();
        }
    }

    /** An application's handler object, no Spring bean. */
    static class Reminders {

        final List<String> sent = new CopyOnWriteArrayList<>();

        @DelayedHandler(type = "reminder.send")
        void send(String text, TaskContext context) {
            sent.add(text);
        }
    }
}
