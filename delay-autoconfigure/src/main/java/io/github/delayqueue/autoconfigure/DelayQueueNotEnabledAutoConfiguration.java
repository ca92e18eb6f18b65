package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.api.EnableDelayQueue;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * When no configuration class carries {@link EnableDelayQueue}: warns at startup if the application has
 * {@code @DelayedHandler} methods, which then never run. The rest of the starter stays off, as it should.
 */
@AutoConfiguration
@ConditionalOnMissingBean(annotation = EnableDelayQueue.class)
public final class DelayQueueNotEnabledAutoConfiguration {

    @Bean
    static HandlersWithoutQueueWarning delayHandlersWithoutQueueWarning() {
        return new HandlersWithoutQueueWarning();
    }
}
