package io.github.delayqueue.it;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.testservices.TcpProxy;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis losing its data or going away mid-run: the database still has every task, so each runs exactly once, at
 * most about the sweep grace late. Redis is reached through a {@link TcpProxy} the test can cut.
 * Scenario 3 of the fault suite.
 */
@Tag("reliability")
class HybridFaultsIT {

    /** Sweep grace used here; lateness of tasks Redis lost is bounded by it plus the sweep interval. */
    private static final long GRACE_MILLIS = 2000;

    private final Journal journal = new Journal();

    private TcpProxy redisProxy;

    private Instances instances;

    @BeforeEach
    void start() {
        URI redis = URI.create(TestServices.redisUrl());
        redisProxy = new TcpProxy(redis.getHost(), redis.getPort());
        instances = new Instances(journal, "spring.data.redis.url=redis://127.0.0.1:" + redisProxy.port(),
                "spring.data.redis.timeout=1s", "delay.hybrid.sweep-grace=" + GRACE_MILLIS + "ms",
                "delay.hybrid.sweep-interval=500ms", "delay.jdbc.poll-interval=200ms");
    }

    @AfterEach
    void close() {
        redisProxy.restore();
        instances.close();
        redisProxy.close();
    }

    private List<Long> scheduleSpread(DelayQueue queue, int count, long maxDelayMillis) {
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            requests.add(TaskRequest.of("test.ok", "f" + i)
                .delay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(maxDelayMillis)))
                .build());
        }
        return new ArrayList<>(queue.scheduleAll(requests));
    }

    @Test
    void redisFlushedMidRunLosesNothing() {
        ConfigurableApplicationContext first = instances.start();
        instances.start();
        DelayQueue queue = first.getBean(DelayQueue.class);
        RedisTimeIndex index = (RedisTimeIndex) first.getBean(TimeIndex.class);
        List<Long> ids = scheduleSpread(queue, 2000, 5000);

        AbstractQueueIT.sleep(1500);
        LettuceConnectionFactory direct = TestRedis.single();
        try {
            new StringRedisTemplate(direct).delete(IndexAccess.key(index, 0)); // the index loses everything it held
        }
        finally {
            direct.destroy();
        }

        journal.awaitDistinct(ids.size(), 30);
        Lateness.assertOnceAndOnTime(journal, ids, GRACE_MILLIS + 1500);
    }

    @Test
    void redisRefusingConnectionsMidRunLosesNothingAndTheIndexIsRebuilt() {
        ConfigurableApplicationContext first = instances.start();
        instances.start();
        DelayQueue queue = first.getBean(DelayQueue.class);
        List<Long> ids = scheduleSpread(queue, 1500, 6000);

        AbstractQueueIT.sleep(1000);
        redisProxy.cut();
        // scheduled while Redis is down: committed to the database, run from there
        List<Long> duringOutage = scheduleSpread(queue, 300, 5000);
        ids.addAll(duringOutage);
        AbstractQueueIT.sleep(3000);
        redisProxy.restore();
        // scheduled after it is back, due beyond the outage: indexed again, precise again
        List<Long> after = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            after.add(queue.schedule("test.ok", "after", Duration.ofMillis(2500 + i * 10L)));
        }
        ids.addAll(after);

        journal.awaitDistinct(ids.size(), 40);
        for (long id : ids) {
            assertThat(journal.startsOf(id)).as("starts of %d", id).hasSize(1);
            Journal.Start start = journal.startsOf(id).get(0);
            assertThat(start.startedAt()).isGreaterThanOrEqualTo(start.dueAt());
        }
        // while Redis was down the database poller ran them: late by about the poll interval, never by the timeout
        Lateness.assertOnceAndOnTime(journal, duringOutage, GRACE_MILLIS + 1500);
        Lateness.assertOnceAndOnTime(journal, after, 500);
        assertThat(queue.find(ids.get(0)).orElseThrow().status()).isEqualTo(TaskStatus.SUCCEEDED);
    }

    /**
     * A migration whose index add hangs on Redis (a network that drops packets: Lettuce waits for its timeout) holds
     * no row lock meanwhile: the rows are committed as queued first, so a cancel, a claim or another instance's
     * migration never waits for Redis.
     */
    @Test
    void migrationHoldsNoRowLockWhileRedisHangs() {
        ConfigurableApplicationContext context = instances.start("spring.data.redis.timeout=20s",
                "delay.hybrid.threshold=1s", "delay.hybrid.migration-interval=200ms");
        DelayQueue queue = context.getBean(DelayQueue.class);
        long id = queue.schedule("test.ok", "migrated", Duration.ofSeconds(3)); // beyond the threshold: in the database
        JdbcTemplate other = new JdbcTemplate(instances.database().dataSource());
        redisProxy.freeze();
        try {
            await("the migrated row, committed and locked by nobody").atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    assertThat(queue.find(id).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
                    assertThat(other.queryForList("SELECT id FROM delay_task WHERE id = ? FOR UPDATE NOWAIT",
                            Long.class, id)).containsExactly(id);
                });
        }
        finally {
            redisProxy.thaw();
        }
        journal.awaitStarted(id, 40);
    }

    @Test
    void aTaskCommittedWhileRedisIsDownStillFires() {
        ConfigurableApplicationContext context = instances.start();
        DelayQueue queue = context.getBean(DelayQueue.class);
        redisProxy.cut();
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        long id = tx.execute(status -> queue.schedule("test.ok", "while down", Duration.ofMillis(300)));

        journal.awaitStarted(id, 15);
        Lateness.assertOnceAndOnTime(journal, List.of(id), GRACE_MILLIS + 1500);
    }

    @Test
    void aProducerOnlyInstanceIndexesItsTasksAgainOnceRedisIsBack() {
        // the worker reaches Redis directly; only the producer goes through the proxy that is cut
        instances.start("spring.data.redis.url=" + TestServices.redisUrl());
        ConfigurableApplicationContext producer = instances.start("delay.worker.enabled=false");
        DelayQueue queue = producer.getBean(DelayQueue.class);
        DelayQueueRuntime indexer = producer.getBean(DelayQueueRuntime.class);
        redisProxy.cut();
        long duringOutage = queue.schedule("test.ok", "while down", Duration.ofMillis(300));
        // the add after the commit, off the caller's thread, fails and marks the index unreachable
        await("the failed add marked the index unreachable").atMost(Duration.ofSeconds(15))
            .until(() -> !indexer.indexAnswers());
        redisProxy.restore();
        await("the producer sees Redis again").atMost(Duration.ofSeconds(10)).until(indexer::indexAnswers);

        List<Long> after = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            after.add(queue.schedule("test.ok", "after", Duration.ofMillis(1500 + i * 10L)));
        }
        journal.awaitDistinct(after.size() + 1, 30);
        Lateness.assertOnceAndOnTime(journal, List.of(duringOutage), GRACE_MILLIS + 1500);
        // indexed, so precise: without the producer's probe they would wait for the sweep grace
        Lateness.assertOnceAndOnTime(journal, after, 500);
    }
}
