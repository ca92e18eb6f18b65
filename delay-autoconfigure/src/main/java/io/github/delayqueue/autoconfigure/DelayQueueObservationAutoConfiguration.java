package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.ObservedHandlerInvoker;
import io.github.delayqueue.actuate.TaskExecutionObservationConvention;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.handler.HandlerInvoker;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Runs every handler in a {@code delay.task.execution} Micrometer observation when the application has an
 * {@link ObservationRegistry} (Spring Boot's actuator makes one), so a tracer shows a span per run and Boot's meter
 * handler a timer, the run's only one (the queue's meters then time none). An application's own
 * {@link HandlerInvoker} bean takes its place.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(value = ObservationRegistry.class, annotation = EnableDelayQueue.class)
public final class DelayQueueObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    HandlerInvoker delayObservedHandlerInvoker(ObservationRegistry registry,
            ObjectProvider<TaskExecutionObservationConvention> convention) {
        return new ObservedHandlerInvoker(registry, convention.getIfUnique());
    }
}
