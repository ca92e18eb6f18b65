package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications with disjoint task types on one task table, as the README describes it (in hybrid mode each with
 * its own Redis key prefix): each runs only its own types, a task one schedules for the other runs on the other, a
 * type neither serves waits and shows in both instances' gauge and health, and nothing fails.
 */
class SeveralApplicationsOneTableIT {

    @ParameterizedTest
    @ValueSource(strings = { "jdbc", "hybrid" })
    void eachApplicationRunsOnlyItsOwnTypesAndNothingFails(String mode) {
        Journal journal = new Journal();
        try (Instances instances = new Instances(DeployApp.class, journal, "delay.mode=" + mode,
                "delay.metrics.refresh-interval=200ms")) {
            ConfigurableApplicationContext appA = instances.start("deploy.a=true", "delay.instance-id=app-a");
            ConfigurableApplicationContext appB = instances.start("deploy.b=true", "delay.instance-id=app-b",
                    "delay.redis.key-prefix=" + instances.keyPrefix() + "-b");
            DelayQueue queueA = appA.getBean(DelayQueue.class);
            DelayQueue queueB = appB.getBean(DelayQueue.class);
            List<Long> ofA = new ArrayList<>();
            List<Long> ofB = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                ofA.add(queueA.schedule("deploy.a", "a" + i, Duration.ofMillis(i * 5)));
                ofB.add(queueB.schedule("deploy.b", "b" + i, Duration.ofMillis(i * 5)));
            }
            for (int i = 0; i < 10; i++) {
                ofB.add(queueA.schedule("deploy.b", "from a " + i, Duration.ZERO)); // scheduled by the other one
            }
            long orphan = queueA.schedule("deploy.nobody", "o", Duration.ZERO);
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());

            await("every task of a served type done").atMost(60, TimeUnit.SECONDS)
                .pollInterval(200, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status IN ('SUCCEEDED', "
                        + "'FAILED')", Integer.class) == ofA.size() + ofB.size());

            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'FAILED'", Integer.class))
                .isZero();
            Verdict.assertKept(journal, ofA, 60_000, 0);
            Verdict.assertKept(journal, ofB, 60_000, 0);
            assertThat(ofA).allSatisfy(id -> assertThat(journal.startsOf(id))
                .allSatisfy(start -> assertThat(start.instance()).startsWith("app-a")));
            assertThat(ofB).allSatisfy(id -> assertThat(journal.startsOf(id))
                .allSatisfy(start -> assertThat(start.instance()).startsWith("app-b")));
            assertThat(jdbc.queryForObject("SELECT status FROM delay_task WHERE id = ?", String.class, orphan))
                .isIn("SCHEDULED", "QUEUED");
            assertThat(journal.startsOf(orphan)).isEmpty();

            assertThat(appA.getBean(DelayQueueRuntime.class).status().servedTypes()).containsExactly("deploy.a");
            for (ConfigurableApplicationContext app : List.of(appA, appB)) {
                DelayQueueHealthIndicator health = app.getBean("delayQueueHealthIndicator",
                        DelayQueueHealthIndicator.class);
                MeterRegistry registry = app.getBean(MeterRegistry.class);
                await("the task nobody serves, in the health and the gauge").atMost(10, TimeUnit.SECONDS)
                    .untilAsserted(() -> {
                        Health now = health.health();
                        assertThat(now.getDetails()).containsEntry("unservedTasks", 1L);
                        assertThat(Duration.parse((String) now.getDetails().get("oldestUnservedAge")))
                            .isPositive();
                        assertThat(registry.get("delay.tasks.unserved").gauge().value()).isEqualTo(1.0);
                        assertThat(registry.get("delay.tasks.unserved.oldest").gauge().value()).isPositive();
                    });
            }
        }
    }
}
