package io.github.delayqueue.index;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The harness reaches a real Redis node and a real Redis Cluster. */
class RedisConnectionIT {

    @Test
    void roundTripOnTheSingleNode() {
        LettuceConnectionFactory factory = TestRedis.single();
        try {
            StringRedisTemplate redis = new StringRedisTemplate(factory);
            String key = TestServices.newKeyPrefix() + ":probe";
            redis.opsForValue().set(key, "hello");
            assertThat(redis.opsForValue().get(key)).isEqualTo("hello");
            redis.delete(key);
        }
        finally {
            factory.destroy();
        }
    }

    @Test
    void roundTripOnTheClusterAcrossSlots() {
        LettuceConnectionFactory factory = TestRedis.cluster();
        try {
            StringRedisTemplate redis = new StringRedisTemplate(factory);
            String prefix = TestServices.newKeyPrefix();
            List<String> keys = new ArrayList<>();
            Set<Integer> slots = new HashSet<>();
            for (int i = 0; i < 12; i++) {
                String key = prefix + ":{" + i + "}";
                keys.add(key);
                slots.add(io.lettuce.core.cluster.SlotHash.getSlot(key));
                redis.opsForValue().set(key, "v" + i);
            }
            assertThat(slots).hasSizeGreaterThan(1);
            for (int i = 0; i < keys.size(); i++) {
                assertThat(redis.opsForValue().get(keys.get(i))).isEqualTo("v" + i);
            }
            assertThat(factory.getClusterConnection().clusterGetNodes()).hasSizeGreaterThanOrEqualTo(3);
            redis.delete(keys);
        }
        finally {
            factory.destroy();
        }
    }
}
