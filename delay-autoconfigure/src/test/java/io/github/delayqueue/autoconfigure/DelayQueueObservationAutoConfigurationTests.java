package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.actuate.DefaultTaskExecutionObservationConvention;
import io.github.delayqueue.actuate.ObservedHandlerInvoker;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.autoconfigure.QueueContexts.Enabled;
import io.github.delayqueue.autoconfigure.QueueContexts.NotEnabled;
import io.github.delayqueue.handler.HandlerInvoker;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
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
