package io.github.delayqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.testservices.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The two tiers on a real Redis: millisecond wake-ups for short delays, migration for long ones. */
class HybridTiersIT {

    private final Journal journal = new Journal();

    private Instances instances;

    private LettuceConnectionFactory redisFactory;

    @AfterEach
    void close() {
        if (instances != null) {
            instances.close();
        }
        if (redisFactory != null) {
            redisFactory.destroy();
        }
    }

    private StringRedisTemplate redis() {
        redisFactory = TestRedis.single();
        return new StringRedisTemplate(redisFactory);
    }

    @Test
    void shortDelaysFireWithinMillisecondsWithDefaultSettings() {
        instances = new Instances(journal);
        DelayQueue queue = instances.start().getBean(DelayQueue.class);
        DelayQueue producer = instances.start("delay.worker.enabled=false").getBean(DelayQueue.class);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            // due times spread over 0.3-2.3 s, from the consuming instance and from a producer-only one
            DelayQueue from = i % 2 == 0 ? queue : producer;
            ids.add(from.schedule("test.ok", "p" + i,
                    Duration.ofMillis(300 + ThreadLocalRandom.current().nextInt(2000))));
            AbstractQueueIT.sleep(15);
        }
        journal.awaitDistinct(ids.size(), 15);
        // default max-wait is 1s: only the wake-ups can keep every task well under that
        Lateness.assertOnceAndOnTime(journal, ids, 500);
    }

    @Test
    void longDelaysStayInTheDatabaseUntilMigratedThenFireOnTime() {
        instances = new Instances(journal, "delay.hybrid.threshold=3s", "delay.hybrid.migration-interval=500ms");
        ConfigurableApplicationContext context = instances.start();
        DelayQueue queue = context.getBean(DelayQueue.class);
        RedisTimeIndex index = (RedisTimeIndex) context.getBean(io.github.delayqueue.index.TimeIndex.class);
        StringRedisTemplate redis = redis();

        long soon = queue.schedule("test.ok", "soon", Duration.ofSeconds(2));
        long later = queue.schedule("test.ok", "later", Duration.ofSeconds(6));

        assertThat(queue.find(soon).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(queue.find(later).orElseThrow().status()).isEqualTo(TaskStatus.SCHEDULED);
        // indexed after the commit, off the caller's thread: within milliseconds
        await().atMost(5, TimeUnit.SECONDS).pollInterval(10, TimeUnit.MILLISECONDS)
            .until(() -> redis.opsForZSet().score(IndexAccess.key(index, 0), Long.toString(soon)) != null);
        assertThat(redis.opsForZSet().score(IndexAccess.key(index, 0), Long.toString(later))).isNull();

        await().atMost(6, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS)
            .until(() -> queue.find(later).orElseThrow().status() == TaskStatus.QUEUED);
        // the migrator indexes after its commit, on the scheduler: the score follows the row shortly
        await().atMost(3, TimeUnit.SECONDS).pollInterval(20, TimeUnit.MILLISECONDS).until(() -> journal.startsOf(later)
            .isEmpty() && redis.opsForZSet().score(IndexAccess.key(index, 0), Long.toString(later)) != null);
        assertThat(journal.startsOf(later)).as("migrated, not yet run").isEmpty();

        journal.awaitStarted(later, 10);
        Lateness.assertOnceAndOnTime(journal, List.of(soon, later), 500);
    }

    @Test
    void retriesReEnterTheTierOfTheirNewDueTime() {
        instances = new Instances(journal, "delay.hybrid.threshold=2s", "delay.hybrid.migration-interval=500ms");
        DelayQueue queue = instances.start().getBean(DelayQueue.class);
        // test.fail: backoff 200ms -> due soon -> QUEUED; a 5s backoff would go to SCHEDULED
        long id = queue.schedule(TaskRequest.of("test.fail", "r").maxAttempts(2).build());
        await().atMost(10, TimeUnit.SECONDS).until(() -> journal.startsOf(id).size() == 2);
        assertThat(journal.startsOf(id).get(1).startedAt() - journal.startsOf(id).get(0).startedAt())
            .isBetween(200L, 1500L);
    }

    @Test
    void threeInstancesRunTenThousandMixedTasksExactlyOnce() {
        instances = new Instances(journal, "delay.hybrid.threshold=2s", "delay.hybrid.migration-interval=500ms");
        runMixed(instances, journal);
    }

    /** 10,000 tasks due over 0-4 s across both tiers, scheduled through three instances; each runs once. */
    static void runMixed(Instances instances, Journal journal) {
        List<DelayQueue> queues = List.of(instances.start().getBean(DelayQueue.class),
                instances.start().getBean(DelayQueue.class), instances.start().getBean(DelayQueue.class));
        Set<Long> ids = new HashSet<>();
        for (int batch = 0; batch < 20; batch++) {
            List<TaskRequest> requests = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                requests.add(TaskRequest.of("test.ok", "m")
                    .delay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(4000)))
                    .build());
            }
            ids.addAll(queues.get(batch % 3).scheduleAll(requests));
        }
        assertThat(ids).hasSize(10_000);
        journal.awaitDistinct(10_000, 120);
        for (long id : ids) {
            List<Journal.Start> starts = journal.startsOf(id);
            assertThat(starts).as("starts of task %d", id).hasSize(1);
            assertThat(starts.get(0).startedAt()).isGreaterThanOrEqualTo(starts.get(0).dueAt());
        }
        assertThat(journal.totalStarts()).isEqualTo(10_000);
    }
}
