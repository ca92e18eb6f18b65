package io.github.delayqueue.autoconfigure;


import java.util.List;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpoint.ActionDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpointWebExtension;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.autoconfigure.QueueContexts.Enabled;
import io.github.delayqueue.autoconfigure.QueueContexts.InMemoryInspection;
import io.github.delayqueue.autoconfigure.QueueContexts.NotEnabled;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DelayQueueEndpointAutoConfiguration}, as Spring Boot tests its endpoint auto-configurations: there when
 * exposed, over the web with its web extension, over JMX without it, gone when not exposed or switched off,
 * without the actuator or {@code @EnableDelayQueue}, and backing off for the application's own.
 */
class DelayQueueEndpointAutoConfigurationTests {

    private final ApplicationContextRunner runner = QueueContexts.queue()
        .withConfiguration(AutoConfigurations.of(DelayQueueEndpointAutoConfiguration.class))
        .withUserConfiguration(Enabled.class, InMemoryInspection.class);

    @Test
    void exposedOverTheWebTheEndpointComesWithItsWebExtensionAndReadsTheStore() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(DelayQueueEndpoint.class);
            assertThat(context).hasSingleBean(DelayQueueEndpointWebExtension.class);
            context.getBean(DelayQueue.class).schedule("t", "p", java.time.Duration.ofHours(2));

            DelayQueueEndpoint.QueueDescriptor queue = context.getBean(DelayQueueEndpoint.class).queue();

            assertThat(queue.mode()).isEqualTo("jdbc");
            assertThat(queue.counts()).containsEntry(TaskStatus.SCHEDULED, 1L);
        });
    }

    @Test
    void exposedOverJmxOnlyTheEndpointComesWithoutItsWebExtension() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=health", "spring.jmx.enabled=true",
                "management.endpoints.jmx.exposure.include=delayqueue")
            .run(context -> {
                assertThat(context).hasSingleBean(DelayQueueEndpoint.class);
                assertThat(context).doesNotHaveBean(DelayQueueEndpointWebExtension.class);
            });
    }

    @Test
    void notExposedThereIsNoEndpoint() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
        });
    }

    @Test
    void switchedOffThereIsNoEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue",
                "management.endpoint.delayqueue.enabled=false")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
            });
    }

    @Test
    void withoutTheActuatorOrTheQueueThereIsNoEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
            .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate.endpoint"))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
                });
        QueueContexts.queue()
            .withConfiguration(AutoConfigurations.of(DelayQueueEndpointAutoConfiguration.class))
            .withUserConfiguration(NotEnabled.class)
            .withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
            .run(context -> {
                assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class);
                assertThat(context).doesNotHaveBean(TaskInspector.class);
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEndpoint {

        @Bean
        DelayQueueEndpoint myEndpoint(DelayQueueRuntime runtime) {
            return new DelayQueueEndpoint(runtime, java.time.Duration.ofSeconds(1));
        }
    }

    @Test
    void anEndpointOfTheApplicationsReplacesTheQueues() {
        runner.withUserConfiguration(OwnEndpoint.class)
            .withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
            .run(context -> {
                assertThat(context).hasSingleBean(DelayQueueEndpoint.class);
                assertThat(context).hasBean("myEndpoint");
            });
    }

    /** In hybrid mode a dead letter the endpoint re-runs is due now, so it goes back into the index. */
    @Test
    void inHybridModeARerunDeadLetterIsIndexedAgain() {
        InMemoryTimeIndex index = new InMemoryTimeIndex(1);
        runner.withBean(TimeIndex.class, () -> index)
            .withPropertyValues("delay.mode=hybrid", "management.endpoints.web.exposure.include=delayqueue")
            .run(context -> {
                InMemoryTaskStore store = context.getBean(InMemoryTaskStore.class);
                long now = context.getBean(DelayQueueRuntime.class).now().toEpochMilli();
                long id = store.insert(List.of(new NewTask("t", null, "\"p\"", now, TaskStatus.QUEUED, null)), now)
                    .get(0)
                    .id();
                ClaimedTask claimed = store.claimIds(List.of(id), now, new Lease("a", now + 30_000, now)).get(0);
                store.finish(List.of(new Completion.Failed(id, claimed.claim(), 3, "boom")), now);

                ActionDescriptor rerun = context.getBean(DelayQueueEndpoint.class).act(id, "rerun");

                assertThat(rerun.done()).isTrue();
                assertThat(rerun.task().status()).isEqualTo(TaskStatus.QUEUED);
                assertThat(context.getBean(DelayQueueEndpoint.class).queue().mode()).isEqualTo("hybrid");
                assertThat(index.pop(0, Long.MAX_VALUE, 10).ids()).containsExactly(id);
            });
    }
}
