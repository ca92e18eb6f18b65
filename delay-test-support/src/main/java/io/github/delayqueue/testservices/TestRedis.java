package io.github.delayqueue.testservices;

import java.util.List;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Connection factories on the test Redis node and the test Redis Cluster; the caller destroys them. */
public final class TestRedis {

    private TestRedis() {
    }

    /** A started factory on the single test node. */
    public static LettuceConnectionFactory single() {
        java.net.URI uri = java.net.URI.create(TestServices.redisUrl());
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /** A started factory on the test cluster; skips (or fails, in CI) the test when there is none. */
    public static LettuceConnectionFactory cluster() {
        List<String> nodes = TestServices.redisClusterNodes();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(nodes));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /** Spring properties that point {@code spring.data.redis.*} at the cluster (cluster tests only). */
    public static String[] clusterProperties() {
        return new String[] { "spring.data.redis.cluster.nodes=" + String.join(",", TestServices.redisClusterNodes()) };
    }
}
