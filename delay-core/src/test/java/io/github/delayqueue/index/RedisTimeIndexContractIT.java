package io.github.delayqueue.index;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.test.TimeIndexContract;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link TimeIndexContract} on {@link RedisTimeIndex} on the test Redis node; {@code RedisClusterTimeIndexContractIT}
 * runs the same on the test Redis Cluster. Each index gets a key prefix of its own; another instance is another
 * connection factory on the same prefix, as another process would have.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisTimeIndexContractIT extends TimeIndexContract {

    private LettuceConnectionFactory mine;

    private LettuceConnectionFactory theirs;

    private final List<LettuceConnectionFactory> elsewhere = new ArrayList<>();

    private final Map<TimeIndex, String> prefixes = new IdentityHashMap<>();

    /** A started connection factory on the Redis under test. */
    LettuceConnectionFactory connect() {
        return TestRedis.single();
    }

    /** Where a Redis like the one under test would be, on a port where nothing listens. */
    RedisConfiguration nowhere(int port) {
        return new RedisStandaloneConfiguration("127.0.0.1", port);
    }

    /** Connects at the first index, inside a test: without a cluster each test is then reported skipped. */
    private void connectTwoInstances() {
        if (mine == null) {
            mine = connect();
            theirs = connect();
        }
    }

    @AfterAll
    void disconnect() {
        for (LettuceConnectionFactory factory : new LettuceConnectionFactory[] { mine, theirs }) {
            if (factory != null) { // null: no cluster to connect to, and the class was skipped
                factory.destroy();
            }
        }
        elsewhere.forEach(LettuceConnectionFactory::destroy);
    }

    @Override
    protected TimeIndex createIndex(int shards) {
        connectTwoInstances();
        String prefix = TestServices.newKeyPrefix();
        TimeIndex index = new RedisTimeIndex(mine, prefix, shards);
        prefixes.put(index, prefix);
        return index;
    }

    @Override
    protected TimeIndex anotherInstance(TimeIndex index) {
        return new RedisTimeIndex(theirs, prefixes.get(index), index.shards());
    }

    @Override
    protected TimeIndex unreachableIndex() {
        connectTwoInstances(); // the cluster's variant is skipped without a cluster, like the others
        LettuceConnectionFactory factory = new LettuceConnectionFactory(nowhere(closedPort()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        elsewhere.add(factory);
        return new RedisTimeIndex(factory, TestServices.newKeyPrefix(), 2);
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
