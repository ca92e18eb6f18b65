package io.github.delayqueue.reliability;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 5: one instance's clock runs 2 s ahead. The database clock is authoritative: each instance measures its
 * offset to it and corrects its due times and its "now", so no task starts early on the skewed instance. The second
 * test shows the same run with the correction off, to prove the check can fail.
 */
@Tag("reliability")
class ClockSkewReliabilityIT {

    private static final Duration SKEW = Duration.ofSeconds(2);

    /** Starts are compared with due times in this process's clock, the same host as the database. */
    private static final long TOLERANCE_MILLIS = 50;

    @Test
    void anInstanceTwoSecondsAheadStartsNothingEarly() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal)) {
            ConfigurableApplicationContext honest = instances.start();
            ConfigurableApplicationContext skewed = instances.start(
                    ctx -> ctx.getBeanFactory().registerSingleton("clock", Clock.offset(Clock.systemUTC(), SKEW)));
            assertThat(skewed.getBean(DelayQueueRuntime.class).clock().offsetMillis()).isBetween(-SKEW.toMillis() - 100,
                    -SKEW.toMillis() + 100);

            List<Long> ids = scheduleFromBoth(honest, skewed);
            awaitAllDone(instances, ids.size());
            Verdict.assertKept(journal, ids, 2_000, TOLERANCE_MILLIS);
            assertThat(journal.all()).anySatisfy(s -> assertThat(s.instance())
                .isEqualTo(skewed.getBean(DelayQueueRuntime.class).status().instanceId()));
        }
    }

    @Test
    void withoutTheDatabaseClockTheSkewedInstanceWouldStartTasksEarly() {
        ReliabilityApp.Handlers.failureRate = 0;
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.clock.source=local")) {
            ConfigurableApplicationContext honest = instances.start("delay.worker.enabled=false");
            ConfigurableApplicationContext skewed = instances.start(
                    ctx -> ctx.getBeanFactory().registerSingleton("clock", Clock.offset(Clock.systemUTC(), SKEW)));
            List<Long> ids = scheduleFromBoth(honest, skewed);
            awaitAllDone(instances, ids.size());
            long early = journal.all().stream().filter(s -> s.startedAt() < s.dueAt() - 1_000).count();
            assertThat(early).as("tasks started more than 1 s early").isPositive();
        }
        finally {
            ReliabilityApp.Handlers.failureRate = 0.10;
        }
    }

    private static List<Long> scheduleFromBoth(ConfigurableApplicationContext a, ConfigurableApplicationContext b) {
        List<Long> ids = new ArrayList<>();
        for (int round = 0; round < 10; round++) {
            for (ConfigurableApplicationContext context : List.of(a, b)) {
                List<TaskRequest> requests = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    requests.add(TaskRequest.of("rel.work", "s").delay(Duration.ofMillis(500 + i * 60L)).build());
                }
                ids.addAll(context.getBean(DelayQueue.class).scheduleAll(requests));
            }
            sleepQuietly(200);
        }
        return ids;
    }

    private static void awaitAllDone(Instances instances, int count) {
        JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
        await().atMost(60, TimeUnit.SECONDS).pollInterval(250, TimeUnit.MILLISECONDS)
            .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                    Integer.class) == count);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
