package io.github.delayqueue.runtime;

import javax.sql.DataSource;

import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.testservices.TestRedis;
import io.github.delayqueue.testservices.TestServices;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link PayloadEvolutionScenarios} on the real table, in jdbc mode and with the real Redis index: the runtimes of a
 * test share a fresh database (and, in hybrid mode, a key prefix), as two releases of an application do.
 */
class PayloadEvolutionIT {

    @Nested
    class JdbcMode extends PayloadEvolutionScenarios {

        private final DataSource dataSource = TestServices.newDatabase().dataSource();

        @Override
        DelayQueueRuntimeBuilder builder() {
            return DelayQueueRuntime.builder(dataSource).initializeSchema(true);
        }
    }

    @Nested
    class HybridMode extends PayloadEvolutionScenarios {

        private final DataSource dataSource = TestServices.newDatabase().dataSource();

        private final String prefix = TestServices.newKeyPrefix();

        private @Nullable LettuceConnectionFactory redis;

        @Override
        DelayQueueRuntimeBuilder builder() {
            LettuceConnectionFactory factory = redis;
            if (factory == null) {
                factory = TestRedis.single();
                redis = factory;
            }
            return DelayQueueRuntime.builder(dataSource)
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
}
