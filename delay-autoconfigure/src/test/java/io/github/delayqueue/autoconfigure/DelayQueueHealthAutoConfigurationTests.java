package io.github.delayqueue.autoconfigure;

import java.util.List;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.autoconfigure.QueueContexts.Enabled;
import io.github.delayqueue.autoconfigure.QueueContexts.InMemoryInspection;
import io.github.delayqueue.engine.EngineAccess;
import io.github.delayqueue.engine.Indexer;
import io.github.delayqueue.engine.QueueClock;
import io.github.delayqueue.index.InMemoryTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.store.InMemoryTaskStore;
import io.github.delayqueue.store.JdbcTaskInspector;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskInspector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
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

import static org.assertj.core.api.Assertions.assertThat;

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
            long now = context.getBean(QueueClock.class).now();
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
            EngineAccess.popOnce(context.getBean(Indexer.class)); // how the queue learns of it

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
                assertThat(context).doesNotHaveBean(TaskInspector.class);
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

    /** The inspector reads the task table through the DataSource; only an actuator part that needs it makes one. */
    @Test
    void theInspectorIsMadeForTheIndicatorAndOnlyForAnActuatorPart() {
        withoutInspector.run(context -> {
            assertThat(context.getBean(TaskInspector.class)).isInstanceOf(JdbcTaskInspector.class);
            assertThat(context.getBean(RefusingDataSource.class).attempts()).as("not until asked").isZero();
        });
        withoutInspector.withPropertyValues("management.health.delayqueue.enabled=false")
            .run(context -> assertThat(context).doesNotHaveBean(TaskInspector.class));
    }

    private static IndicatedHealthDescriptor queueHealth(AssertableApplicationContext context) {
        CompositeHealthDescriptor health = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class).health();
        return (IndicatedHealthDescriptor) health.getComponents().get("delayQueue");
    }
}
