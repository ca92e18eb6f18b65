package io.github.delayqueue.runtime;

import javax.sql.DataSource;

import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** {@link ClusterLimitsScenarios} on the real table, in jdbc mode and with the real Redis index. */
class ClusterLimitsIT {

    @Nested
    class JdbcMode extends OnTheTable {

        @Override
        DelayQueueRuntimeBuilder instance() {
            return DelayQueueRuntime.builder(dataSource()).initializeSchema(true);
        }
    }

    @Nested
    class HybridMode extends OnTheTable {

        private final String prefix = TestServices.newKeyPrefix();

        private @Nullable LettuceConnectionFactory redis;

        @Override
        DelayQueueRuntimeBuilder instance() {
            LettuceConnectionFactory factory = redis;
            if (factory == null) {
                factory = TestRedis.single();
                redis = factory;
            }
            return DelayQueueRuntime.builder(dataSource())
                .initializeSchema(true)
                .timeIndex(new RedisTimeIndex(factory, prefix, 2));
        }

        @AfterEach
        void closeRedis() {
            if (redis != null) {
                redis.destroy();
            }
        }
    }

    /** The instances of a test on a fresh database of their own. */
    abstract static class OnTheTable extends ClusterLimitsScenarios {

        private @Nullable DataSource dataSource;

        DataSource dataSource() {
            DataSource fresh = dataSource;
            if (fresh == null) {
                fresh = TestServices.newDatabase().dataSource();
                dataSource = fresh;
            }
            return fresh;
        }
    }
}
