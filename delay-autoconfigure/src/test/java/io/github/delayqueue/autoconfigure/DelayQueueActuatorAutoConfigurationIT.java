package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpointWebExtension;
import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.actuate.ObservedHandlerInvoker;
import io.github.delayqueue.actuate.QueueGauges;
import io.github.delayqueue.actuate.TaskMeters;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator parts appear with the actuator, and back off without it, without Micrometer, without
 * {@code @EnableDelayQueue}, when switched off, or when the application brings its own; on a real database.
 */
class DelayQueueActuatorAutoConfigurationIT {

    private static final TestDatabase db = TestServices.newDatabase();

    /** The queue and its actuator parts, without Spring Boot's actuator auto-configuration. */
    private final WebApplicationContextRunner base = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
                DelayQueueAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class,
                DelayQueueHealthAutoConfiguration.class, DelayQueueEndpointAutoConfiguration.class,
                DelayQueueObservationAutoConfiguration.class))
        .withPropertyValues(db.springProperties())
        .withPropertyValues("delay.mode=jdbc", "delay.worker.enabled=false",
                "management.endpoints.web.exposure.include=health,delayqueue");

    /** As an application with spring-boot-starter-actuator has it. */
    private final WebApplicationContextRunner runner = base.withConfiguration(AutoConfigurations.of(
            MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, ObservationAutoConfiguration.class,
            HealthContributorAutoConfiguration.class, EndpointAutoConfiguration.class,
            WebEndpointAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class Enabled {
    }

    @Configuration(proxyBeanMethods = false)
    static class NotEnabled {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class OwnInvoker {

        @Bean
        HandlerInvoker myInvoker() {
            return HandlerInvoker.DIRECT;
        }
    }

    @Test
    void withTheActuatorEveryPartIsThere() {
        runner.withUserConfiguration(Enabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(TaskInspector.class);
            assertThat(context).hasSingleBean(TaskMeters.class);
            assertThat(context).hasSingleBean(QueueGauges.class);
            assertThat(context).hasSingleBean(DelayQueueHealthIndicator.class);
            assertThat(context).hasBean("delayQueueHealthIndicator");
            assertThat(context).hasSingleBean(DelayQueueEndpoint.class);
            assertThat(context).hasSingleBean(DelayQueueEndpointWebExtension.class);
            assertThat(context.getBean(HandlerInvoker.class)).isInstanceOf(ObservedHandlerInvoker.class);
            assertThat(context.getBean(MeterRegistry.class).find("delay.tasks.pending").gauges()).hasSize(3);
        });
    }

    @Test
    void withoutEnableDelayQueueNothingIsThere() {
        runner.withUserConfiguration(NotEnabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(TaskInspector.class);
            assertThat(context).doesNotHaveBean(TaskMeters.class);
            assertThat(context).doesNotHaveBean(QueueGauges.class);
            assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
            assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
            assertThat(context).doesNotHaveBean(HandlerInvoker.class);
        });
    }

    @Test
    void withoutActuatorJarsNeitherHealthNorEndpoint() {
        base.withUserConfiguration(Enabled.class)
            .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate.endpoint",
                    "org.springframework.boot.health.contributor"))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
                assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
            });
    }

    @Test
    void withoutMicrometerNeitherMetersNorObservations() {
        base.withUserConfiguration(Enabled.class)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .withClassLoader(new FilteredClassLoader(MeterRegistry.class, ObservationRegistry.class))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(TaskMeters.class);
                assertThat(context).doesNotHaveBean(QueueGauges.class);
                assertThat(context).doesNotHaveBean(ObservedHandlerInvoker.class);
                assertThat(context).hasSingleBean(DelayQueueHealthIndicator.class);
            });
    }

    @Test
    void withoutAMeterRegistryBeanNoMeters() {
        base.withUserConfiguration(Enabled.class)
            .withPropertyValues("management.health.delayqueue.enabled=false",
                    "management.endpoints.web.exposure.include=health")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(TaskMeters.class);
                assertThat(context).doesNotHaveBean(QueueGauges.class);
                assertThat(context).doesNotHaveBean(HandlerInvoker.class);
            });
    }

    @Test
    void healthAndEndpointCanBeSwitchedOff() {
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("management.health.delayqueue.enabled=false",
                    "management.endpoints.web.exposure.include=health")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
                assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
                assertThat(context).hasSingleBean(TaskMeters.class);
            });
    }

    @Test
    void anInvokerOfTheApplicationWins() {
        runner.withUserConfiguration(OwnInvoker.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(HandlerInvoker.class)).isSameAs(HandlerInvoker.DIRECT);
        });
    }
}
