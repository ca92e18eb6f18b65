package io.github.delayqueue.index;

import java.util.List;

import io.github.delayqueue.testservices.TestRedis;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link TimeIndexContract} on {@link RedisTimeIndex} on the test Redis Cluster, where the shards of one index sit in
 * different slots. Skipped, with the reason, when no cluster is configured ({@code DELAY_TEST_REDIS_CLUSTER_NODES}).
 */
class RedisClusterTimeIndexContractIT extends RedisTimeIndexContractIT {

    @Override
    LettuceConnectionFactory connect() {
        return TestRedis.cluster();
    }

    @Override
    RedisConfiguration nowhere(int port) {
        return new RedisClusterConfiguration(List.of("127.0.0.1:" + port));
    }
}
