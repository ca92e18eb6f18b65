package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.IndexWatch;
import io.github.delayqueue.runtime.Indexer;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.runtime.WakeSignal;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * Hybrid mode's Redis time index on the application's {@code RedisConnectionFactory}. Hybrid is the default mode,
 * so an application without Redis gets a startup error that says to add it or to set {@code delay.mode=jdbc}.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(BoundPropertyCondition.HybridMode.class)
class DelayQueueRedisConfiguration {

    @Bean
    @ConditionalOnMissingBean
    Indexer delayIndexer(TimeIndex index, ObjectProvider<TaskEvents> events) {
        return new Indexer(index, TaskEvents.composite(events.orderedStream().toList()));
    }

    /** A producer-only instance has no engine to notice that Redis is back; this does, once a second. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "delay.worker.enabled", havingValue = false)
    IndexWatch delayIndexWatch(Indexer indexer, TaskStore store, WakeSignal wake,
            @Qualifier(DelayQueueThreadsConfiguration.SCHEDULER) TaskScheduler scheduler) {
        return new IndexWatch(scheduler, indexer, store, wake, Duration.ofSeconds(1));
    }

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
