package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hybrid mode's Redis time index on the application's {@code RedisConnectionFactory}, for the runtime. Hybrid is the
 * default mode, so an application without Redis gets a startup error that says to add it or to set
 * {@code delay.mode=jdbc}. An application may define a {@link TimeIndex} bean of its own instead (the index SPI may
 * change before 1.0).
 */
@Configuration(proxyBeanMethods = false)
@Conditional(BoundPropertyCondition.HybridMode.class)
class DelayQueueRedisConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.data.redis.connection.RedisConnectionFactory")
    static class RedisIndexConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TimeIndex delayTimeIndex(ObjectProvider<RedisConnectionFactory> redis, DelayQueueProperties properties) {
            RedisConnectionFactory factory = redis.getIfUnique();
            if (factory == null) {
                throw missingRedis();
            }
            String advice = RedisTimeoutAdvice.check(factory);
            if (advice != null) {
                LoggerFactory.getLogger(DelayQueueRedisConfiguration.class).warn(advice);
            }
            return new RedisTimeIndex(factory, properties.getRedis().getKeyPrefix(),
                    properties.getRedis().getShards());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.data.redis.connection.RedisConnectionFactory")
    static class NoRedisConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TimeIndex delayTimeIndex() {
            throw missingRedis();
        }
    }

    static InvalidConfigurationPropertyValueException missingRedis() {
        return new InvalidConfigurationPropertyValueException("delay.mode", "hybrid",
                "hybrid mode (the default) keeps tasks due soon in Redis and needs a RedisConnectionFactory: add "
                        + "spring-boot-starter-data-redis and set spring.data.redis.*, or set delay.mode=jdbc "
                        + "to use the database alone");
    }
}
