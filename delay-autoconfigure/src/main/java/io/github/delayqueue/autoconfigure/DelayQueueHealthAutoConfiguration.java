package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code delayQueue} health indicator, with Spring Boot's health support on the classpath; switched off with
 * {@code management.health.delayqueue.enabled=false}.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(annotation = EnableDelayQueue.class)
@ConditionalOnEnabledHealthIndicator("delayqueue")
public final class DelayQueueHealthAutoConfiguration {

    /** How long the health check waits for the database before it reports DOWN. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    /** The bean name minus Boot's "HealthIndicator" suffix makes the component name {@code delayQueue}. */
    @Bean
    @ConditionalOnMissingBean(name = "delayQueueHealthIndicator")
    DelayQueueHealthIndicator delayQueueHealthIndicator(DelayQueueRuntime runtime, DelayQueueProperties properties) {
        return new DelayQueueHealthIndicator(runtime, properties.getHealth().getMaxOverdue(), TIMEOUT);
    }
}
