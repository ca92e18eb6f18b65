package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.actuate.DefaultTaskExecutionObservationConvention;
import io.github.delayqueue.actuate.ObservedHandlerInvoker;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.autoconfigure.QueueContexts.Enabled;
import io.github.delayqueue.autoconfigure.QueueContexts.NotEnabled;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.runtime.TraceContextSource;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DelayQueueObservationAutoConfiguration}: handlers run in an observation where the application has an
 * {@link ObservationRegistry}, directly without one or without Micrometer; the application's own invoker wins.
 */
class DelayQueueObservationAutoConfigurationTests {

    private final ApplicationContextRunner runner = QueueContexts.queue()
        .withConfiguration(AutoConfigurations.of(DelayQueueObservationAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class WithHandler {

        @Bean
        Object greeter() {
            return new Object() {
                @DelayedHandler(type = "greet")
                void greet(String name) {
                }
            };
        }
    }

    @Test
    void withARegistryEveryHandlerRunsInAnObservation() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withUserConfiguration(WithHandler.class)
            .withBean(ObservationRegistry.class, () -> registry)
            .withPropertyValues("delay.worker.enabled=true", "delay.worker.shutdown-timeout=1s")
            .run(context -> {
                assertThat(context.getBean(HandlerInvoker.class)).isInstanceOf(ObservedHandlerInvoker.class);

                context.getBean(DelayQueue.class).schedule("greet", "Ada", Duration.ZERO);

                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> TestObservationRegistryAssert
                    .assertThat(registry)
                    .hasObservationWithNameEqualTo(DefaultTaskExecutionObservationConvention.NAME)
                    .that()
                    .hasBeenStopped());
            });
    }

    /**
     * With a tracer, the trace that scheduled a task spans its run: the run's span has the scheduling span's trace id
     * and that span as its parent, though it runs later on a worker thread. A task scheduled outside a span starts a
     * trace of its own.
     */
    @Test
    void withATracerTheRunContinuesTheTraceThatScheduledTheTask() {
        SimpleTracer tracer = new SimpleTracer();
        Propagator propagator = new W3cTestPropagator(tracer);
        ObservationRegistry registry = ObservationRegistry.create();
        // as Spring Boot's tracing auto-configuration registers them: receiver, sender, then the default handler
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        runner.withUserConfiguration(WithHandler.class)
            .withBean(ObservationRegistry.class, () -> registry)
            .withBean(Tracer.class, () -> tracer)
            .withBean(Propagator.class, () -> propagator)
            .withPropertyValues("delay.worker.enabled=true", "delay.worker.shutdown-timeout=1s")
            .run(context -> {
                assertThat(context).hasSingleBean(TraceContextSource.class);
                DelayQueue queue = context.getBean(DelayQueue.class);
                Span checkout = tracer.nextSpan().name("checkout").start();
                try (Tracer.SpanInScope scope = tracer.withSpan(checkout)) {
                    queue.schedule("greet", "Ada", Duration.ZERO);
                }
                finally {
                    checkout.end();
                }
                queue.schedule("greet", "Grace", Duration.ZERO);

                await().atMost(Duration.ofSeconds(10)).until(() -> runs(tracer).size() == 2);
                SimpleSpan traced = runs(tracer).stream()
                    .filter(run -> run.getTraceId().equals(checkout.context().traceId()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no run in the scheduling trace: " + runs(tracer)));
                assertThat(traced.getParentId()).as("the scheduling span").isEqualTo(checkout.context().spanId());
                assertThat(traced.getSpanId()).isNotEqualTo(checkout.context().spanId());
                assertThat(runs(tracer)).filteredOn(run -> run != traced).singleElement()
                    .satisfies(own -> assertThat(own.getTraceId()).as("a trace of its own")
                        .isNotEqualTo(checkout.context().traceId()));
            });
    }

    /** The spans of finished runs. */
    private static List<SimpleSpan> runs(SimpleTracer tracer) {
        return tracer.getSpans().stream()
            .filter(span -> "delay greet".equals(span.getName()) && span.getEndTimestamp().toEpochMilli() > 0)
            .toList();
    }

    @Test
    void withoutATracerTasksCarryNoTrace() {
        runner.withUserConfiguration(Enabled.class)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .run(context -> assertThat(context).doesNotHaveBean(TraceContextSource.class));
        runner.withUserConfiguration(Enabled.class)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .withBean(Tracer.class, SimpleTracer::new)
            .withBean(Propagator.class, () -> Propagator.NOOP)
            .withClassLoader(new FilteredClassLoader("io.micrometer.tracing"))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(TraceContextSource.class);
            });
    }

    @Test
    void withoutARegistryOrMicrometerHandlersRunDirectly() {
        runner.withUserConfiguration(Enabled.class)
            .run(context -> assertThat(context).doesNotHaveBean(HandlerInvoker.class));
        runner.withUserConfiguration(Enabled.class)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(HandlerInvoker.class);
            });
        runner.withUserConfiguration(NotEnabled.class)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .run(context -> assertThat(context).doesNotHaveBean(HandlerInvoker.class));
    }

    @Test
    void anInvokerOfTheApplicationsReplacesTheObservedOne() {
        runner.withUserConfiguration(Enabled.class)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .withBean(HandlerInvoker.class, () -> HandlerInvoker.DIRECT)
            .run(context -> assertThat(context.getBean(HandlerInvoker.class)).isSameAs(HandlerInvoker.DIRECT));
    }
}
