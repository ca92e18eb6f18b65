package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.autoconfigure.QueueContexts.Enabled;
import io.github.delayqueue.autoconfigure.QueueContexts.InMemoryInspection;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.EngineAccess;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DelayQueueHealthAutoConfiguration}: the {@code delayQueue} component with Boot's health support, what it
 * reports from the in-memory store, and when it is not there (switched off, no health on the classpath, the
 * application's own indicator). The shared {@link TaskInspector} exists only for an actuator part that reads it.
 */
class DelayQueueHealthAutoConfigurationTests {

    private final ApplicationContextRunner withoutInspector = QueueContexts.queue()
        .withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
                HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                DelayQueueHealthAutoConfiguration.class))
        .withUserConfiguration(Enabled.class)
        .withPropertyValues("management.endpoint.health.show-details=always");

    private final ApplicationContextRunner runner = withoutInspector.withUserConfiguration(InMemoryInspection.class);

    @Test
    void theQueueIsAHealthComponentThatIsUpWithNothingOverdue() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(HealthContributorRegistry.class).getContributor("delayQueue"))
                .isInstanceOf(DelayQueueHealthIndicator.class);
            IndicatedHealthDescriptor queue = queueHealth(context);
            assertThat(queue.getStatus()).isEqualTo(Status.UP);
            assertThat(queue.getDetails()).containsEntry("mode", "jdbc")
                .containsEntry("overdueTasks", 0L)
                .containsEntry("oldestOverdueAge", "PT0S")
                .doesNotContainKeys("redisReachable", "instance");
        });
    }

    @Test
    void aTaskOverdueByMoreThanMaxOverdueMakesItDown() {
        runner.withPropertyValues("delay.health.max-overdue=1m").run(context -> {
            long now = context.getBean(DelayQueueRuntime.class).now().toEpochMilli();
            context.getBean(InMemoryTaskStore.class)
                .insert(List.of(new NewTask("t", null, "1", now - 600_000, TaskStatus.SCHEDULED, null)), now);

            IndicatedHealthDescriptor queue = queueHealth(context);

            assertThat(queue.getStatus()).isEqualTo(Status.DOWN);
            assertThat(queue.getDetails()).containsEntry("overdueTasks", 1L);
            assertThat((String) queue.getDetails().get("reason")).contains("delay.health.max-overdue (PT1M)");
        });
    }

    /** Redis down is not DOWN: the queue runs on from the database, and says so. */
    @Test
    void inHybridModeItSaysWhetherRedisIsReachableAndStaysUpWithout() {
        InMemoryTimeIndex index = new InMemoryTimeIndex(1);
        runner.withBean(TimeIndex.class, () -> index).withPropertyValues("delay.mode=hybrid").run(context -> {
            assertThat(queueHealth(context).getDetails()).containsEntry("mode", "hybrid")
                .containsEntry("redisReachable", true);
            index.reachable(false);
            EngineAccess.popOnce(context.getBean(DelayQueueRuntime.class)); // how the queue learns of it

            assertThat(queueHealth(context).getStatus()).isEqualTo(Status.UP);
            assertThat(queueHealth(context).getDetails()).containsEntry("redisReachable", false);
        });
    }

    @Test
    void withAWorkerItNamesTheInstanceAndWhatItHolds() {
        runner.withPropertyValues("delay.worker.enabled=true", "delay.worker.threads=3", "delay.instance-id=app-1",
                "delay.worker.shutdown-timeout=1s")
            .run(context -> assertThat(queueHealth(context).getDetails())
                .hasEntrySatisfying("instance", id -> assertThat((String) id).startsWith("app-1:"))
                .containsEntry("heldTasks", 0)
                .containsKey("capacity"));
    }

    @Test
    void itCanBeSwitchedOffAloneOrWithEveryDefaultIndicator() {
        for (String off : List.of("management.health.delayqueue.enabled=false",
                "management.health.defaults.enabled=false")) {
            runner.withPropertyValues(off).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).as(off).doesNotHaveBean(DelayQueueHealthIndicator.class);
            });
        }
    }

    @Test
    void withoutBootsHealthSupportThereIsNoIndicator() {
        withoutInspector.withClassLoader(new FilteredClassLoader("org.springframework.boot.health.contributor"))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
            });
    }

    @Test
    void anIndicatorOfTheApplicationsOfTheSameNameReplacesTheQueues() {
        HealthIndicator own = () -> Health.outOfService().build();
        runner.withBean("delayQueueHealthIndicator", HealthIndicator.class, () -> own).run(context -> {
            assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class);
            assertThat(queueHealth(context).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        });
    }

    /**
     * Lease renewal hangs on a database call that never returns: once it has completed no run for three of its
     * intervals (15 s at the least), the queue is DOWN and says which part of the engine stalled.
     */
    @Test
    void aStalledEngineJobMakesItDownAndNamesIt() {
        QueueContexts.bare()
            .withBean(DataSource.class, RefusingDataSource::new)
            .withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class,
                    TaskExecutionAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                    DelayQueueHealthAutoConfiguration.class))
            .withUserConfiguration(Enabled.class, HangingRenewals.class, InMemoryInspection.class,
                    QueueContexts.InMemoryStore.class, DelayQueueLifecycleTests.Handlers.class)
            .withPropertyValues("management.endpoint.health.show-details=always", "delay.worker.enabled=true",
                    "delay.worker.lease=3s")
            .run(context -> {
                HangingRenewalsStore store = context.getBean(HangingRenewalsStore.class);
                DelayQueueLifecycleTests.Handlers handlers = context.getBean(DelayQueueLifecycleTests.Handlers.class);
                context.getBean(DelayQueue.class).schedule("life.slow", "held", Duration.ZERO);
                await().atMost(Duration.ofSeconds(10)).until(() -> handlers.slowStarted.get() != 0);
                assertThat(queueHealth(context).getStatus()).isEqualTo(Status.UP);
                store.hang.set(true);
                try {
                    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500))
                        .until(() -> queueHealth(context).getStatus().equals(Status.DOWN));
                    assertThat(queueHealth(context).getDetails()).containsEntry("stalled", List.of("lease renewal"));
                }
                finally {
                    store.release();
                    handlers.releaseSlow();
                }
            });
    }

    /** Renewals hang while {@link #hang} is set, as on a connection to a database that stopped answering. */
    static class HangingRenewalsStore extends InMemoryTaskStore {

        final AtomicBoolean hang = new AtomicBoolean();

        private final CountDownLatch released = new CountDownLatch(1);

        @Override
        public Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil) {
            if (hang.get()) {
                try {
                    released.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.extendLeases(held, leaseUntil);
        }

        void release() {
            released.countDown();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HangingRenewals {

        @Bean
        HangingRenewalsStore store() {
            return new HangingRenewalsStore();
        }
    }

    private static IndicatedHealthDescriptor queueHealth(AssertableApplicationContext context) {
        CompositeHealthDescriptor health = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class).health();
        return (IndicatedHealthDescriptor) health.getComponents().get("delayQueue");
    }
}
