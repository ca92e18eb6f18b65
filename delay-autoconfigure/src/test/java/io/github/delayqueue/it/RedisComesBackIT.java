package io.github.delayqueue.it;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.testservices.TcpProxy;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis coming back after an outage: wake-ups work again, also on an instance that started while Redis was down,
 * and the index is rebuilt once for all instances without losing what any of them scheduled meanwhile. Redis is
 * reached through {@link TcpProxy proxies} the test cuts and restores.
 */
@Tag("reliability")
class RedisComesBackIT {

    /**
     * Consumers wake at least this often without wake-ups; large, so a task that was not woken for is seconds late.
     * The sweep interval is as large, since the consumer also wakes for every sweep.
     */
    private static final String MAX_WAIT = "8s";

    /** Lateness allowed to a task whose wake-up arrived: milliseconds normally, with room for a loaded machine. */
    private static final long WOKEN_LATENESS_MILLIS = 1500;

    /**
     * Lateness allowed to a task that fell due while its instance could not reach Redis: the poll interval, plus the
     * Redis timeout once when the outage begins, with room for a loaded machine.
     */
    private static final long OUTAGE_LATENESS_MILLIS = 3000;

    private final Journal journal = new Journal();

    /** Full index rebuilds, counted over every instance. */
    private final AtomicInteger rebuilds = new AtomicInteger();

    private final List<TcpProxy> proxies = new ArrayList<>();

    private Instances instances;

    @BeforeEach
    void start() {
        instances = new Instances(journal, "spring.data.redis.timeout=1s", "delay.redis.max-wait=" + MAX_WAIT,
                "delay.hybrid.sweep-interval=" + MAX_WAIT, "delay.hybrid.sweep-grace=20s",
                "delay.jdbc.poll-interval=200ms");
    }

    @AfterEach
    void close() {
        proxies.forEach(TcpProxy::restore);
        instances.close();
        proxies.forEach(TcpProxy::close);
    }

    /** A proxy in front of the test Redis. */
    private TcpProxy proxy() {
        URI redis = URI.create(TestServices.redisUrl());
        TcpProxy proxy = new TcpProxy(redis.getHost(), redis.getPort());
        proxies.add(proxy);
        return proxy;
    }

    /** A proxy in front of the test Redis, refusing connections until restored. */
    private TcpProxy cutProxy() {
        TcpProxy proxy = proxy();
        proxy.cut();
        return proxy;
    }

    /** Registers a listener that counts the instance's full index rebuilds in {@link #rebuilds}. */
    private ApplicationContextInitializer<ConfigurableApplicationContext> countingRebuilds() {
        return context -> context.getBeanFactory().registerSingleton("rebuildCounter", new TaskEvents() {
            @Override
            public void indexRebuilt(int tasks) {
                rebuilds.incrementAndGet();
            }
        });
    }

    /** Tasks due at random within {@code [fromMillis, toMillis)} from now. */
    private static List<Long> schedule(DelayQueue queue, int count, long fromMillis, long toMillis) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long delay = ThreadLocalRandom.current().nextLong(fromMillis, toMillis);
            ids.add(queue.schedule("test.ok", "in " + delay, Duration.ofMillis(delay)));
        }
        return ids;
    }

    private static String through(TcpProxy proxy) {
        return "spring.data.redis.url=redis://127.0.0.1:" + proxy.port();
    }

    /** Subscribers of {@code channel} on the real Redis, whoever they are. */
    private static long subscribers(String channel) {
        RedisClient client = RedisClient.create(TestServices.redisUrl());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().pubsubNumsub(channel).getOrDefault(channel, 0L);
        }
        finally {
            client.shutdown();
        }
    }

    @Test
    void aWorkerStartedWhileRedisIsDownSubscribesToWakeUpsOnceItIsBack() {
        TcpProxy proxy = cutProxy();
        ConfigurableApplicationContext worker = instances.start(through(proxy));
        ConfigurableApplicationContext producer = instances.start("delay.worker.enabled=false");
        String channel = instances.keyPrefix() + ":wake";
        assertThat(subscribers(channel)).as("subscribers while the worker cannot reach Redis").isZero();

        proxy.restore();
        DelayQueueRuntime indexer = worker.getBean(DelayQueueRuntime.class);
        await("the worker sees Redis again").atMost(Duration.ofSeconds(10)).until(indexer::indexAnswers);
        await("the worker subscribes to wake-ups").atMost(Duration.ofSeconds(10))
            .until(() -> subscribers(channel) >= 1);

        // one at a time, so each task is the only one in the index and only its wake-up can get it on time
        DelayQueue queue = producer.getBean(DelayQueue.class);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long id = queue.schedule("test.ok", "sparse " + i, Duration.ofMillis(700));
            ids.add(id);
            journal.awaitStarted(id, 20);
        }
        Lateness.assertOnceAndOnTime(journal, ids, WOKEN_LATENESS_MILLIS);
    }

    @Test
    void afterAnOutageOfAllInstancesOneRebuildsTheIndexForAllAndNothingIsLost() {
        TcpProxy proxy = proxy();
        List<ConfigurableApplicationContext> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(instances.start(countingRebuilds(), through(proxy)));
        }
        List<Long> before = schedule(all.get(0).getBean(DelayQueue.class), 50, 20_000, 22_000);

        proxy.cut();
        // Redis restarts empty meanwhile: only a rebuild from the database can give those tasks their wake-up again
        LettuceConnectionFactory direct = TestRedis.single();
        try {
            RedisTimeIndex index = (RedisTimeIndex) all.get(0).getBean(TimeIndex.class);
            new StringRedisTemplate(direct).delete(IndexAccess.key(index, 0));
        }
        finally {
            direct.destroy();
        }
        AbstractQueueIT.sleep(500);
        // Each instance schedules while it cannot reach Redis: some tasks fall due during the outage, run from the
        // database; the others fall due well after it, so only the rebuilt index (not the 20 s sweep) has them on
        // time. "Well after": Lettuce reconnects at its own back-off, 1, 2, 4 ... 8192 ms apart, so up to 8 s after
        // the proxy is restored; then the instances see Redis back within a second, and the rebuild follows.
        List<Long> dueDuring = new ArrayList<>();
        List<Long> dueAfter = new ArrayList<>();
        for (ConfigurableApplicationContext instance : all) {
            DelayQueue queue = instance.getBean(DelayQueue.class);
            dueDuring.addAll(schedule(queue, 20, 0, 2000));
            dueAfter.addAll(schedule(queue, 20, 25_000, 27_000));
        }
        AbstractQueueIT.sleep(3000);
        long restoredAt = System.currentTimeMillis();
        proxy.restore();

        await("a rebuild").atMost(Duration.ofSeconds(20)).until(() -> rebuilds.get() >= 1);
        journal.awaitDistinct(before.size() + dueDuring.size() + dueAfter.size(), 60);
        // an instance not covered by that rebuild would rebuild within a few seconds of seeing Redis back
        AbstractQueueIT.sleep(Math.max(0, restoredAt + 12_000 - System.currentTimeMillis()));
        assertThat(rebuilds).as("full index rebuilds over the three instances").hasValue(1);
        Lateness.assertOnceAndOnTime(journal, dueDuring, OUTAGE_LATENESS_MILLIS);
        Lateness.assertOnceAndOnTime(journal, dueAfter, WOKEN_LATENESS_MILLIS);
        Lateness.assertOnceAndOnTime(journal, before, WOKEN_LATENESS_MILLIS);
    }

    @ParameterizedTest(name = "worker enabled: {0}")
    @ValueSource(booleans = { true, false })
    void anInstanceCutOffAloneHasWhatItScheduledMeanwhileIndexedOnceItIsBack(boolean worker) {
        instances.start();
        instances.start();
        TcpProxy proxy = proxy();
        ConfigurableApplicationContext alone = instances.start(countingRebuilds(), through(proxy),
                "delay.worker.enabled=" + worker);
        DelayQueueRuntime indexer = alone.getBean(DelayQueueRuntime.class);

        proxy.cut();
        // Due well after the outage (Lettuce reconnects up to 8 s after the restore, see above): the others reach
        // Redis all along and would find them only with the 20 s sweep.
        List<Long> ids = schedule(alone.getBean(DelayQueue.class), 30, 18_000, 20_000);
        // its index writer, not the callers, meets the cut: it fails once Lettuce gives up on the dead connection
        await("the instance cut off noticed").atMost(Duration.ofSeconds(15)).until(() -> !indexer.indexAnswers());
        AbstractQueueIT.sleep(3000);
        proxy.restore();
        await("the instance cut off sees Redis again").atMost(Duration.ofSeconds(15)).until(indexer::indexAnswers);

        journal.awaitDistinct(ids.size(), 60);
        Lateness.assertOnceAndOnTime(journal, ids, WOKEN_LATENESS_MILLIS);
        assertThat(rebuilds).as("rebuilds by the instance cut off, for itself").hasValue(1);
    }
}
