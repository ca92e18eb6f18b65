package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpointWebExtension;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.runtime.DeadLetters;
import io.github.delayqueue.runtime.Indexer;
import io.github.delayqueue.runtime.QueueClock;
import io.github.delayqueue.runtime.Tiers;
import io.github.delayqueue.runtime.WakeSignal;
import io.github.delayqueue.store.TaskInspector;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The {@code delayqueue} actuator endpoint, when it is available (enabled and exposed, e.g.
 * {@code management.endpoints.web.exposure.include=health,delayqueue}), with its web extension for HTTP status codes
 * and the {@link DeadLetters} it re-runs tasks with.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(annotation = EnableDelayQueue.class)
@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
@Import(DelayQueueInspectorConfiguration.class)
public final class DelayQueueEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DeadLetters delayDeadLetters(TaskInspector inspector, ObjectProvider<Indexer> indexer, Tiers tiers,
            QueueClock clock, WakeSignal wake) {
        return new DeadLetters(inspector, indexer.getIfAvailable(), tiers, clock, wake);
    }

    @Bean
    @ConditionalOnMissingBean
    DelayQueueEndpoint delayQueueEndpoint(TaskInspector inspector, DelayQueue queue, DeadLetters deadLetters,
            Tiers tiers, QueueClock clock, DelayQueueProperties properties) {
        return new DelayQueueEndpoint(inspector, queue, deadLetters, tiers,
                properties.getHybrid().getMigrationInterval(), clock);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    DelayQueueEndpointWebExtension delayQueueEndpointWebExtension(DelayQueueEndpoint endpoint) {
        return new DelayQueueEndpointWebExtension(endpoint);
    }
}
