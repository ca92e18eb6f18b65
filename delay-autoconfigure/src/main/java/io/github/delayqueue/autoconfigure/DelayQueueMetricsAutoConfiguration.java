package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.ObservedHandlerInvoker;
import io.github.delayqueue.actuate.QueueGauges;
import io.github.delayqueue.actuate.TaskMeters;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The queue's Micrometer meters, when the application has a {@link MeterRegistry} (Spring Boot's actuator makes
 * one): counters and timers fed by the engine's events ({@link TaskMeters}) and gauges read from a snapshot
 * refreshed every {@code delay.metrics.refresh-interval} ({@link QueueGauges}).
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(value = MeterRegistry.class, annotation = EnableDelayQueue.class)
@EnableConfigurationProperties(DelayQueueMetricsProperties.class)
public final class DelayQueueMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TaskMeters delayQueueTaskMeters(MeterRegistry registry, ObjectProvider<HandlerInvoker> invoker) {
        // An observed run is timed by the observation's meter handler (delay.task.execution): one timer per run.
        return new TaskMeters(registry, !(invoker.getIfUnique() instanceof ObservedHandlerInvoker));
    }

    @Bean
    @ConditionalOnMissingBean
    QueueGauges delayQueueGauges(DelayQueueRuntime runtime, DelayQueueMetricsProperties properties) {
        return new QueueGauges(runtime, properties.getRefreshInterval());
    }
}
