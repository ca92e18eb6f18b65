package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.testservices.TestServices;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The meters move as real tasks run on a real database and Redis; the gauges follow a refreshed snapshot. */
class DelayQueueMetricsIT {

    private static double count(MeterRegistry registry, String name, String... tags) {
        Counter counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private static double gauge(MeterRegistry registry, String name, String... tags) {
        Gauge gauge = registry.find(name).tags(tags).gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    @Test
    void countersAndTimersMoveAsTasksAreScheduledSucceedRetryAndFail() {
        try (ConfigurableApplicationContext context = Contexts.start(WebApplicationType.NONE,
                TestServices.newDatabase().springProperties(), "delay.hybrid.threshold=3s",
                "delay.hybrid.migration-interval=500ms", "delay.metrics.refresh-interval=200ms")) {
            DelayQueue queue = context.getBean(DelayQueue.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            List<Long> ok = List.of(queue.schedule("obs.ok", "1", Duration.ofMillis(100)),
                    queue.schedule("obs.ok", "2", Duration.ofMillis(100)),
                    queue.schedule("obs.ok", "3", Duration.ofMillis(100)));
            long failing = queue.schedule("obs.fail", "f", Duration.ofMillis(100));
            long flaky = queue.schedule("obs.flaky", "y", Duration.ofMillis(100));
            long migrated = queue.schedule("obs.ok", "m", Duration.ofMillis(3_800)); // beyond the 3s threshold
            long cancelled = queue.schedule("obs.ok", "c", Duration.ofHours(1));
            assertThat(queue.cancel(cancelled)).isTrue();
            long parked = queue.schedule("obs.order", "not an order", Duration.ofMillis(100)); // does not bind

            await().atMost(15, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                assertThat(count(registry, "delay.tasks.completed", "type", "obs.ok", "outcome", "success"))
                    .isEqualTo(4);
                assertThat(count(registry, "delay.tasks.completed", "type", "obs.fail", "outcome", "failed"))
                    .isEqualTo(1);
                assertThat(count(registry, "delay.tasks.completed", "type", "obs.flaky", "outcome", "success"))
                    .isEqualTo(1);
                assertThat(gauge(registry, "delay.tasks.dead.letters")).isEqualTo(1);
                assertThat(count(registry, "delay.tasks.completed", "type", "obs.order", "outcome", "parked"))
                    .isEqualTo(1);
                assertThat(gauge(registry, "delay.tasks.parked")).isEqualTo(1);
            });
            assertThat(queue.find(parked).map(TaskView::status)).contains(TaskStatus.PARKED);
            // The counters count how handlers ended; the outcome reaches the row a batch write later.
            await().atMost(10, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                assertThat(queue.find(migrated).map(TaskView::status)).contains(TaskStatus.SUCCEEDED);
                assertThat(queue.find(failing).map(TaskView::status)).contains(TaskStatus.FAILED);
                assertThat(queue.find(flaky).map(TaskView::status)).contains(TaskStatus.SUCCEEDED);
            });
            assertThat(queue.find(flaky).map(TaskView::attempts)).contains(2);
            ObservabilityApp.Handlers handlers = context.getBean(ObservabilityApp.Handlers.class);
            ok.forEach(id -> assertThat(handlers.runsOf(id)).isEqualTo(1));

            assertThat(count(registry, "delay.tasks.scheduled", "type", "obs.ok")).isEqualTo(5);
            assertThat(count(registry, "delay.tasks.scheduled", "type", "obs.fail")).isEqualTo(1);
            assertThat(count(registry, "delay.tasks.completed", "type", "obs.ok", "outcome", "cancelled"))
                .isEqualTo(1);
            assertThat(count(registry, "delay.tasks.completed", "type", "obs.fail", "outcome", "retry"))
                .isEqualTo(1);
            assertThat(count(registry, "delay.tasks.completed", "type", "obs.flaky", "outcome", "retry"))
                .isEqualTo(1);
            assertThat(count(registry, "delay.migration.tasks")).isGreaterThanOrEqualTo(1);

            Timer lateness = registry.get("delay.task.lateness").tag("type", "obs.ok").timer();
            assertThat(lateness.count()).isEqualTo(4);
            assertThat(lateness.max(TimeUnit.MILLISECONDS)).as("started soon after due").isLessThan(3_000);
            assertThat(registry.get("delay.task.lateness").tag("type", "obs.fail").timer().count()).isEqualTo(2);
            // The observation around each run, measured by Boot's meter handler, with the failure as its error tag,
            // is the one timer of a run: the queue's own delay.task.duration stays away.
            assertThat(registry.get("delay.task.execution").tags("type", "obs.ok", "error", "none")
                .timer()
                .count()).isEqualTo(4);
            assertThat(registry.get("delay.task.execution")
                .tags("type", "obs.fail", "error", "IllegalStateException")
                .timer()
                .count()).isEqualTo(2);
            assertThat(registry.find("delay.task.duration").meters()).isEmpty();

            String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
            assertThat(scrape).contains("delay_task_lateness_seconds_bucket{type=\"obs.ok\",le=\"+Inf\"} 4")
                .contains("delay_tasks_completed_total{outcome=\"failed\",type=\"obs.fail\"} 1.0");
        }
    }

    @Test
    void gaugesShowASnapshotRefreshedOnScheduleNeverAQueryPerRead() {
        try (ConfigurableApplicationContext context = Contexts.start(WebApplicationType.NONE,
                TestServices.newDatabase().springProperties(), "delay.worker.enabled=false",
                "delay.metrics.refresh-interval=200ms")) {
            DelayQueue queue = context.getBean(DelayQueue.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            QueueGauges gauges = context.getBean(QueueGauges.class);

            queue.schedule("obs.ok", "q1", Duration.ofMinutes(10));
            queue.schedule("obs.ok", "q2", Duration.ofMinutes(20));
            queue.schedule("obs.ok", "s", Duration.ofHours(2));
            queue.schedule("obs.ok", "late", Instant.now().minusSeconds(60)); // a past time means now

            await().atMost(10, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                assertThat(gauge(registry, "delay.tasks.pending", "status", "queued")).isEqualTo(3);
                assertThat(gauge(registry, "delay.tasks.pending", "status", "scheduled")).isEqualTo(1);
                assertThat(gauge(registry, "delay.tasks.pending", "status", "running")).isZero();
                assertThat(gauge(registry, "delay.tasks.dead.letters")).isZero();
                assertThat(gauge(registry, "delay.index.size", "shard", "0")).isEqualTo(3);
                assertThat(gauge(registry, "delay.tasks.overdue")).isEqualTo(1);
                assertThat(gauge(registry, "delay.tasks.overdue.oldest")).isGreaterThan(1.0);
            });

            // Stopped, the refresher reads nothing: a new task shows only at the next refresh, however often read.
            gauges.stop();
            Instant last = gauges.lastRefresh();
            queue.schedule("obs.ok", "s2", Duration.ofHours(3));
            for (int i = 0; i < 5; i++) {
                assertThat(gauge(registry, "delay.tasks.pending", "status", "scheduled")).isEqualTo(1);
                sleep(100);
            }
            assertThat(gauges.lastRefresh()).isEqualTo(last);
            gauges.refresh();
            assertThat(gauge(registry, "delay.tasks.pending", "status", "scheduled")).isEqualTo(2);
            assertThat(gauges.lastRefresh()).isAfter(last);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
