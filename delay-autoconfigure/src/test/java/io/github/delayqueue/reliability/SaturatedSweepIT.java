package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A task the index lost (popped by an instance that died before its claim, dropped in a failover) is rescued by the
 * sweep within its bound also while the instance is saturated: more tasks fall due than it can run, so every pop
 * fills its batch. The sweep used to stop then, leaving the lost task until the backlog had drained.
 */
@Tag("reliability")
class SaturatedSweepIT {

    private static final long GRACE_MILLIS = 2_000;

    private static final long INTERVAL_MILLIS = 500;

    @Test
    void aTaskMissingFromTheIndexIsSweptWhileTheInstanceIsSaturated() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal,
                "delay.hybrid.sweep-grace=" + GRACE_MILLIS + "ms",
                "delay.hybrid.sweep-interval=" + INTERVAL_MILLIS + "ms",
                "delay.worker.threads=2", "delay.worker.prefetch=2")) {
            ConfigurableApplicationContext instance = instances.start();
            // 40 tasks/s of capacity (two threads, 50 ms each) against 100 due per second: a backlog from the start
            List<TaskRequest> requests = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                requests.add(TaskRequest.of("rel.sleep", 50L).delay(Duration.ofMillis(1_000 + i * 10L)).build());
            }
            List<Long> ids = instance.getBean(DelayQueue.class).scheduleAll(requests);
            long lost = ids.get(100); // due two seconds from now
            RedisTimeIndex index = instance.getBean(RedisTimeIndex.class);
            StringRedisTemplate redis = new StringRedisTemplate(instance.getBean(RedisConnectionFactory.class));
            // added after the commit, off the caller's thread: take it out once it is in
            await().atMost(5, TimeUnit.SECONDS).pollInterval(10, TimeUnit.MILLISECONDS)
                .until(() -> redis.opsForZSet().score(IndexAccess.key(index, 0), Long.toString(lost)) != null);
            redis.opsForZSet().remove(IndexAccess.key(index, 0), Long.toString(lost));

            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            await().atMost(90, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == ids.size());

            Journal.Start start = journal.startsOf(lost).get(0);
            long lastStart = journal.startsOf(ids.get(ids.size() - 1)).get(0).startedAt();
            assertThat(journal.startsOf(lost)).hasSize(1);
            // the bound: grace + interval after it fell due (the backlog had passed its due time by then), with
            // slack for a loaded machine; the backlog drains seconds later
            assertThat(start.startedAt() - start.dueAt()).as("lateness of the lost task")
                .isLessThanOrEqualTo(GRACE_MILLIS + INTERVAL_MILLIS + 3_000);
            assertThat(start.startedAt()).as("swept before the backlog drained").isLessThan(lastStart - 3_000);
        }
    }
}
