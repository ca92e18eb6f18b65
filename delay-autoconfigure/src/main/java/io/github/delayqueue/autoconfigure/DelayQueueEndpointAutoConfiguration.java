package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpointWebExtension;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code delayqueue} actuator endpoint, when it is available (enabled and exposed, e.g.
 * {@code management.endpoints.web.exposure.include=health,delayqueue}), with its web extension for HTTP status codes
 * and the {@link DeadLetters} it re-runs tasks with.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(annotation = EnableDelayQueue.class)
@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
public final class DelayQueueEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayQueueEndpoint delayQueueEndpoint(DelayQueueRuntime runtime, DelayQueueProperties properties) {
        return new DelayQueueEndpoint(runtime, properties.getHybrid().getMigrationInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    DelayQueueEndpointWebExtension delayQueueEndpointWebExtension(DelayQueueEndpoint endpoint) {
        return new DelayQueueEndpointWebExtension(endpoint);
    }
}
