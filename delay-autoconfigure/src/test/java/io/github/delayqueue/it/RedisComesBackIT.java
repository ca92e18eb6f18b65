package io.github.delayqueue.it;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.engine.Indexer;
import io.github.delayqueue.test.TcpProxy;
import io.github.delayqueue.test.TestServices;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

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

    private final Journal journal = new Journal();

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

    /** A proxy in front of the test Redis, refusing connections until restored. */
    private TcpProxy cutProxy() {
        URI redis = URI.create(TestServices.redisUrl());
        TcpProxy proxy = new TcpProxy(redis.getHost(), redis.getPort());
        proxies.add(proxy);
        proxy.cut();
        return proxy;
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
        await("the worker sees Redis again").atMost(Duration.ofSeconds(10)).until(worker.getBean(Indexer.class)::available);
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
}
