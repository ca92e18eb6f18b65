package io.github.delayqueue.actuate;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.EmptyStackException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.runtime.TaskEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Each engine event moves the meter it names, with low-cardinality tags only. */
class TaskMetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();

    private final TaskMeters meters = new TaskMeters(registry);

    private static TaskContext task(long id, String type) {
        return new TaskContext(id, type, "key-" + id, 1, Instant.ofEpochMilli(1_000), Instant.EPOCH, 1);
    }

    private double counter(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    @Test
    void everyEventMovesItsMeter() {
        meters.scheduled("mail.send");
        meters.scheduled("mail.send");
        meters.cancelled("mail.send");
        meters.started(task(1, "mail.send"), 25);
        meters.finished(task(1, "mail.send"), TaskEvents.Outcome.SUCCESS, 3_000_000);
        meters.started(task(2, "mail.send"), -5);
        meters.finished(task(2, "mail.send"), TaskEvents.Outcome.RETRY, 1_000_000);
        meters.finished(task(3, "mail.send"), TaskEvents.Outcome.FAILED, 0);
        meters.finished(task(4, "mail.send"), TaskEvents.Outcome.PARKED, 0);
        meters.claimConflicts(4);
        meters.migrated(7);
        meters.recovered(TaskEvents.RecoveryReason.LEASE, 2);
        meters.recovered(TaskEvents.RecoveryReason.SWEEP, 3);
        meters.indexRebuilt(1200);

        assertThat(counter("delay.tasks.scheduled", "type", "mail.send")).isEqualTo(2);
        assertThat(counter("delay.tasks.completed", "type", "mail.send", "outcome", "success")).isEqualTo(1);
        assertThat(counter("delay.tasks.completed", "type", "mail.send", "outcome", "retry")).isEqualTo(1);
        assertThat(counter("delay.tasks.completed", "type", "mail.send", "outcome", "failed")).isEqualTo(1);
        assertThat(counter("delay.tasks.completed", "type", "mail.send", "outcome", "cancelled")).isEqualTo(1);
        assertThat(counter("delay.tasks.completed", "type", "mail.send", "outcome", "parked")).isEqualTo(1);
        assertThat(counter("delay.claim.conflicts")).isEqualTo(4);
        assertThat(counter("delay.migration.tasks")).isEqualTo(7);
        assertThat(counter("delay.recovery.tasks", "reason", "lease")).isEqualTo(2);
        assertThat(counter("delay.recovery.tasks", "reason", "sweep")).isEqualTo(3);
        assertThat(counter("delay.index.rebuilds")).as("rebuilds, not the tasks they added").isEqualTo(1);

        Timer duration = registry.get("delay.task.duration").tag("type", "mail.send").timer();
        assertThat(duration.count()).as("a dead letter without a handler run records no duration").isEqualTo(2);
        assertThat(duration.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(4.0);

        Timer lateness = registry.get("delay.task.lateness").tag("type", "mail.send").timer();
        assertThat(lateness.count()).isEqualTo(2);
        assertThat(lateness.max(TimeUnit.MILLISECONDS)).isEqualTo(25.0);
    }

    @Test
    void metersThatLeaveTheRunToItsObservationTimeNoRun() {
        TaskMeters observed = new TaskMeters(registry, false);
        observed.started(task(1, "mail.send"), 25);
        observed.finished(task(1, "mail.send"), TaskEvents.Outcome.SUCCESS, 3_000_000);

        assertThat(registry.find("delay.task.duration").meters()).isEmpty();
        assertThat(counter("delay.tasks.completed", "type", "mail.send", "outcome", "success")).isEqualTo(1);
        assertThat(registry.get("delay.task.lateness").tag("type", "mail.send").timer().count()).isEqualTo(1);
    }

    @Test
    void latenessIsPublishedAsAHistogramPrometheusCanTakePercentilesOf() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new TaskMeters(prometheus).started(task(1, "mail.send"), 250);

        String scrape = prometheus.scrape();
        assertThat(scrape).contains("delay_task_lateness_seconds_bucket{type=\"mail.send\",le=\"0.001\"} 0")
            .contains("delay_task_lateness_seconds_bucket{type=\"mail.send\",le=\"3600.0\"} 1")
            .contains("delay_task_lateness_seconds_bucket{type=\"mail.send\",le=\"+Inf\"} 1")
            .contains("delay_tasks_scheduled_total{type=\"mail.send\"} 0.0")
            .contains("delay_tasks_completed_total{outcome=\"success\",type=\"mail.send\"} 0.0");
        assertThat(scrape.lines().filter(line -> line.startsWith("delay_task_lateness_seconds_bucket")).count())
            .as("buckets from 1ms to 1h").isBetween(20L, 120L);
    }

    @Test
    void failedAttemptsAreCountedByTypeReasonAndExceptionName() {
        meters.attemptFailed(task(1, "mail.send"), TaskEvents.Failure.HANDLER, new IllegalStateException("a"));
        meters.attemptFailed(task(2, "mail.send"), TaskEvents.Failure.HANDLER, new IllegalStateException("b"));
        meters.attemptFailed(task(3, "mail.send"), TaskEvents.Failure.HANDLER, new IOException("c"));
        meters.attemptFailed(task(4, "mail.send"), TaskEvents.Failure.BINDING, new RuntimeException("d") {
        });
        meters.attemptFailed(task(5, "nobody"), TaskEvents.Failure.NO_HANDLER, null);
        meters.attemptFailed(task(6, "mail.send"), TaskEvents.Failure.LEASE_LOST, new InterruptedException());
        meters.attemptFailed(task(7, "mail.send"), TaskEvents.Failure.INTERNAL, new OutOfMemoryError());
        meters.attemptFailed(task(8, "mail.send"), TaskEvents.Failure.TIMEOUT, new TimeoutException("PT5S"));

        assertThat(counter("delay.task.failures", "type", "mail.send", "reason", "handler", "exception",
                "IllegalStateException")).isEqualTo(2);
        assertThat(counter("delay.task.failures", "type", "mail.send", "reason", "handler", "exception",
                "IOException")).isEqualTo(1);
        assertThat(counter("delay.task.failures", "type", "mail.send", "reason", "binding", "exception",
                TaskMetersTest.class.getName() + "$1")).as("an anonymous class by its name").isEqualTo(1);
        assertThat(counter("delay.task.failures", "type", "nobody", "reason", "no-handler", "exception", "none"))
            .isEqualTo(1);
        assertThat(counter("delay.task.failures", "type", "mail.send", "reason", "lease-lost", "exception",
                "InterruptedException")).isEqualTo(1);
        assertThat(counter("delay.task.failures", "type", "mail.send", "reason", "internal", "exception",
                "OutOfMemoryError")).isEqualTo(1);
        assertThat(counter("delay.task.failures", "type", "mail.send", "reason", "timeout", "exception",
                "TimeoutException")).isEqualTo(1);
    }

    @Test
    void handlersThatIgnoredTheirTimeoutsInterruptAreCountedByType() {
        meters.timeoutIgnored(task(1, "partner.sync"), "delay-worker-1");
        meters.timeoutIgnored(task(2, "partner.sync"), "delay-worker-2");
        meters.timeoutIgnored(task(3, "mail.send"), "delay-worker-1");

        assertThat(counter("delay.task.timeouts.ignored", "type", "partner.sync")).isEqualTo(2);
        assertThat(counter("delay.task.timeouts.ignored", "type", "mail.send")).isEqualTo(1);
        assertThat(registry.get("delay.task.timeouts.ignored").counters()).as("no thread or id in the tags")
            .allSatisfy(counter -> assertThat(counter.getId().getTags()).hasSize(1));
    }

    /** A handler that throws ever new kinds of exceptions must not grow the registry without end. */
    @Test
    void exceptionNamesPerTypeAreBounded() {
        List<Throwable> kinds = List.of(new IllegalStateException(), new IllegalArgumentException(),
                new UnsupportedOperationException(), new NullPointerException(), new ArithmeticException(),
                new ArrayIndexOutOfBoundsException(), new ClassCastException(), new IndexOutOfBoundsException(),
                new NegativeArraySizeException(), new SecurityException(), new StringIndexOutOfBoundsException(),
                new ArrayStoreException(), new NoSuchElementException(), new ConcurrentModificationException(),
                new IOException(), new TimeoutException(), new CancellationException(),
                new RejectedExecutionException(), new FileNotFoundException(), new EmptyStackException(),
                new DateTimeException("x"), new NumberFormatException(), new InterruptedException(),
                new CloneNotSupportedException(), new InternalError());
        assertThat(kinds).hasSizeGreaterThan(TaskMeters.MAX_EXCEPTIONS_PER_TYPE);
        for (int round = 0; round < 3; round++) {
            kinds.forEach(kind -> meters.attemptFailed(task(1, "gen"), TaskEvents.Failure.HANDLER, kind));
        }

        List<Counter> counters = List.copyOf(registry.find("delay.task.failures").tag("type", "gen").counters());
        assertThat(counters).extracting(counter -> counter.getId().getTag("exception")).doesNotHaveDuplicates()
            .hasSize(TaskMeters.MAX_EXCEPTIONS_PER_TYPE + 1)
            .contains("IllegalStateException", "other")
            .doesNotContain("InternalError");
        assertThat(counters.stream().mapToDouble(Counter::count).sum()).as("every failure counted")
            .isEqualTo(3 * kinds.size());
    }

    @Test
    void tagsNeverCarryIdsOrKeys() {
        meters.started(task(41, "a"), 1);
        meters.finished(task(41, "a"), TaskEvents.Outcome.SUCCESS, 1);
        meters.attemptFailed(task(41, "a"), TaskEvents.Failure.HANDLER, new IllegalStateException("task 41"));
        registry.getMeters().forEach(meter -> meter.getId().getTags().forEach(tag -> {
            assertThat(tag.getKey()).isIn("type", "outcome", "reason", "exception");
            assertThat(tag.getValue()).doesNotContain("41");
        }));
    }
}
