package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A type paused through one instance's endpoint is claimed by no instance: its tasks, due while it is paused, stay
 * pending past the sweep grace, while another type runs; resumed through the other instance, its overdue tasks run at
 * once. A type paused by one instance's {@code delay.paused-types} is left to the other instance.
 */
class PausedTypesIT {

    @ParameterizedTest
    @ValueSource(strings = { "jdbc", "hybrid" })
    void aPausedTypeRunsNothingOnAnyInstanceUntilResumed(String mode) throws InterruptedException {
        Journal journal = new Journal();
        try (Instances instances = new Instances(DeployApp.class, journal, "delay.mode=" + mode, "deploy.a=true",
                "deploy.b=true", "management.endpoint.delayqueue.access=unrestricted",
                "management.endpoints.web.exposure.include=delayqueue")) {
            ConfigurableApplicationContext one = instances.start("delay.instance-id=one");
            ConfigurableApplicationContext two = instances.start("delay.instance-id=two");
            DelayQueue queue = one.getBean(DelayQueue.class);
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());

            assertThat(one.getBean(DelayQueueEndpoint.class).bulk("deploy.a", "pause", null, null, null, null)
                .changed()).isEqualTo(1);
            Thread.sleep(1_500); // every instance has read the pause
            List<Long> paused = new ArrayList<>();
            List<Long> running = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                paused.add(queue.schedule("deploy.a", "a" + i, Duration.ofMillis(i * 10)));
                running.add(queue.schedule("deploy.b", "b" + i, Duration.ofMillis(i * 10)));
            }
            await("the other type runs").atMost(30, TimeUnit.SECONDS)
                .until(() -> running.stream().allMatch(id -> !journal.startsOf(id).isEmpty()));
            Thread.sleep(7_000); // past the sweep grace (5 s): no sweep takes them either
            assertThat(paused).as("paused tasks started").allSatisfy(id -> assertThat(journal.startsOf(id)).isEmpty());
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'deploy.a' AND status "
                    + "IN ('SCHEDULED', 'QUEUED')", Integer.class)).as("pending").isEqualTo(paused.size());
            for (ConfigurableApplicationContext instance : List.of(one, two)) {
                assertThat(instance.getBean(DelayQueueRuntime.class).status().pausedTypes())
                    .containsExactly("deploy.a");
            }

            long resumedAt = System.currentTimeMillis();
            assertThat(two.getBean(DelayQueueRuntime.class).resume("deploy.a")).isTrue();
            await("the overdue tasks run once resumed").atMost(30, TimeUnit.SECONDS)
                .until(() -> paused.stream().allMatch(id -> !journal.startsOf(id).isEmpty()));
            long latest = paused.stream().mapToLong(id -> journal.startsOf(id).get(0).startedAt()).max()
                .orElseThrow();
            System.out.println("[paused types, " + mode + "] the last overdue task started " + (latest - resumedAt)
                    + " ms after the resume");
            assertThat(latest - resumedAt).as("at once, not after a poll or sweep cycle of its own")
                .isLessThan(Duration.ofSeconds(5).toMillis());
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'FAILED'", Integer.class))
                .isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "jdbc", "hybrid" })
    void aTypePausedByOneInstancesPropertyRunsOnTheOther(String mode) {
        Journal journal = new Journal();
        try (Instances instances = new Instances(DeployApp.class, journal, "delay.mode=" + mode, "deploy.a=true")) {
            DelayQueue queue = instances.start("delay.instance-id=holds-a", "delay.paused-types=deploy.a")
                .getBean(DelayQueue.class);
            instances.start("delay.instance-id=runs-a");
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                ids.add(queue.schedule("deploy.a", "a" + i, Duration.ofMillis(i * 10)));
            }
            await().atMost(30, TimeUnit.SECONDS)
                .until(() -> ids.stream().allMatch(id -> !journal.startsOf(id).isEmpty()));
            assertThat(journal.all()).allSatisfy(start -> assertThat(start.instance()).startsWith("runs-a"));
        }
    }
}
