package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.ObservedHandlerInvoker;
import io.github.delayqueue.actuate.TaskExecutionObservationConvention;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.runtime.TraceContextSource;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs every handler in a {@code delay.task.execution} Micrometer observation when the application has an
 * {@link ObservationRegistry} (Spring Boot's actuator makes one), so a tracer shows a span per run and Boot's meter
 * handler a timer, the run's only one (the queue's meters then time none). An application's own
 * {@link HandlerInvoker} bean takes its place. With Micrometer Tracing's {@link Tracer} and {@link Propagator} (a
 * tracing bridge), each task also stores the trace it was scheduled in, and its run's span continues that trace.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
                "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
                "org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration",
                "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure."
                        + "OpenTelemetryTracingAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(value = ObservationRegistry.class, annotation = EnableDelayQueue.class)
public final class DelayQueueObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    HandlerInvoker delayObservedHandlerInvoker(ObservationRegistry registry,
            ObjectProvider<TaskExecutionObservationConvention> convention) {
        return new ObservedHandlerInvoker(registry, convention.getIfUnique());
    }

    /** The trace a task is scheduled in, stored with it, for its run to continue. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Tracer.class)
    @ConditionalOnBean({ Tracer.class, Propagator.class })
    static class TraceContextConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TraceContextSource delayTraceContextSource(Tracer tracer, Propagator propagator) {
            return new PropagatedTraceContext(tracer, propagator);
        }
    }
}
