package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.actuate.QueueGauges;
import io.github.delayqueue.actuate.TaskMeters;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.autoconfigure.QueueContexts.Enabled;
import io.github.delayqueue.autoconfigure.QueueContexts.InMemoryInspection;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.TestScheduler;
import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DelayQueueMetricsAutoConfiguration}: the queue's meters where Boot's metrics make a registry, counting what
 * the queue does and reading the in-memory store; none without a registry or without Micrometer; the application's
 * own meters win.
 */
class DelayQueueMetricsAutoConfigurationTests {

    private final ApplicationContextRunner withoutMetrics = QueueContexts.queue()
        .withConfiguration(AutoConfigurations.of(DelayQueueMetricsAutoConfiguration.class))
        .withUserConfiguration(Enabled.class, InMemoryInspection.class);

    /** As an application with spring-boot-starter-actuator has it. */
    private final ApplicationContextRunner runner = withoutMetrics.withConfiguration(AutoConfigurations.of(
            MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class));

    @Test
    void withARegistryTheMetersCountWhatTheQueueDoesAndGaugeTheStore() {
        runner.withPropertyValues("delay.metrics.refresh-interval=50ms").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(TaskMeters.class);
            assertThat(context).hasSingleBean(QueueGauges.class);
            DelayQueue queue = context.getBean(DelayQueue.class);
            queue.schedule("t", "1", Duration.ofHours(1));
            queue.schedule("t", "2", Duration.ofHours(1));
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            assertThat(registry.get("delay.tasks.scheduled").tag("type", "t").counter().count()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(registry
                .get("delay.tasks.pending")
                .tag("status", "scheduled")
                .gauge()
                .value()).isEqualTo(2));
        });
    }

    @Test
    void withoutARegistryThereAreNoMeters() {
        withoutMetrics.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(TaskMeters.class);
            assertThat(context).doesNotHaveBean(QueueGauges.class);
        });
    }

    @Test
    void withoutMicrometerThereAreNoMeters() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.core")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(TaskMeters.class);
            assertThat(context).doesNotHaveBean(QueueGauges.class);
        });
    }

    @Test
    void metersOfTheApplicationsReplaceTheQueues() {
        TaskMeters meters = new TaskMeters(new SimpleMeterRegistry());
        runner.withBean(TaskMeters.class, () -> meters)
            .withBean(QueueGauges.class, () -> new QueueGauges(DelayQueueRuntime.builder(new InMemoryTaskStore(),
                    new InMemoryTaskInspector(new InMemoryTaskStore())).runsTasks(false).scheduler(TestScheduler.SHARED)
                .build(), Duration.ofMinutes(1)))
            .run(context -> {
                assertThat(context).hasSingleBean(TaskMeters.class);
                assertThat(context.getBean(TaskMeters.class)).isSameAs(meters);
                assertThat(context).hasSingleBean(QueueGauges.class);
            });
    }
}
