package io.github.delayqueue.runtime;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.testservices.TcpProxy;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
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

    /**
     * A stop comes right after callers scheduled: the runtime's stop returns once their tasks are in the index, before
     * the application closes the index's connections (Spring stops Redis's connection factory after the queue). A stop
     * that returned with index adds still queued let the closing factory fail them ("The time index is unreachable
     * (... LettuceConnectionFactory is STOPPING)" at every shutdown of the benchmark's instances), and tasks scheduled
     * just before a shutdown then waited for another instance's sweep instead of its wake-up.
     */
    @Test
    void aStopReturnsOnceTheTasksScheduledJustBeforeAreInTheIndex() {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        LettuceConnectionFactory redis = TestRedis.single();
        RedisTimeIndex index = new RedisTimeIndex(redis, TestServices.newKeyPrefix(), 2);
        try (DelayQueueRuntime runtime = DelayQueueRuntime.builder(dataSource)
            .initializeSchema(true)
            .timeIndex(index)
            .handlers(new Reminders())
            .shutdownTimeout(Duration.ofSeconds(5))
            .build()) {
            runtime.start();
            List<TaskRequest> requests = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) { // ten index calls
                requests.add(TaskRequest.of("reminder.send", "r" + i).delay(Duration.ofMinutes(10)).build());
            }
            runtime.queue().scheduleAll(requests);

            runtime.stop();
            assertThat(index.size(0) + index.size(1)).as("tasks in the index when the stop returned")
                .isEqualTo(10_000);
        }
        finally {
            redis.destroy();
        }
    }

    /** But a Redis that hangs does not hold the stop: it waits 2 s at most for the index, not Redis's timeout. */
    @Test
    void aStopDoesNotWaitForARedisThatHangs() {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        URI server = URI.create(TestServices.redisUrl());
        try (TcpProxy proxy = new TcpProxy(server.getHost(), server.getPort())) {
            LettuceConnectionFactory redis = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration("127.0.0.1", proxy.port()));
            redis.afterPropertiesSet();
            redis.start();
            try (DelayQueueRuntime runtime = DelayQueueRuntime.builder(dataSource)
                .initializeSchema(true)
                .timeIndex(new RedisTimeIndex(redis, TestServices.newKeyPrefix(), 2))
                .handlers(new Reminders())
                .shutdownTimeout(Duration.ofSeconds(1))
                .build()) {
                runtime.start();
                proxy.freeze();
                List<TaskRequest> requests = new ArrayList<>();
                for (int i = 0; i < 5_000; i++) { // five index calls: one under way, four queued
                    requests.add(TaskRequest.of("reminder.send", "r" + i).delay(Duration.ofMinutes(10)).build());
                }
                runtime.queue().scheduleAll(requests);

                long start = System.nanoTime();
                runtime.stop();
                // Lettuce's command timeout is 60 s; the stop's wait for the index 2 s, the engine's drain beside it
                assertThat((System.nanoTime() - start) / 1_000_000).as("the stop, ms").isLessThan(15_000);
                proxy.thaw();
            }
            finally {
                redis.destroy();
            }
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
