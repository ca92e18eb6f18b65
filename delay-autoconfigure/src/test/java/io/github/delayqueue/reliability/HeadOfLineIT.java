package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A type at its {@code concurrency} limit with a large backlog ({@code hol.slow}: one at a time, 100 ms each, 1,000
 * due at once) takes no claim slot from another type: {@code hol.quick}, scheduled at a steady pace beside it, starts
 * as late as it does with no backlog at all. The two runs are compared in the same test; the bound is twice the p99
 * lateness without the backlog plus a margin (a jdbc poll interval, 200 ms, and 50 ms for a loaded 2-core machine),
 * never an absolute time. Before, the backlog filled every claim slot and no quick task started within a minute.
 */
class HeadOfLineIT {

    private static final int QUICK_TASKS = 150;

    private static final long MARGIN_MILLIS = 250;

    @ParameterizedTest
    @ValueSource(strings = { "jdbc", "hybrid" })
    void aTypeAtItsLimitWithABacklogDoesNotDelayAnotherType(String mode) throws InterruptedException {
        long alone = p99(quickLateness(mode, false));
        long beside = p99(quickLateness(mode, true));

        System.out.println("[head of line, " + mode + "] p99 lateness of the quick type: " + alone + " ms alone, "
                + beside + " ms beside a saturated type");
        assertThat(beside).as("p99 lateness beside the saturated type, against %d ms alone", alone)
            .isLessThanOrEqualTo(2 * alone + MARGIN_MILLIS);
    }

    /** The lateness of each quick task's start, with a saturated backlog of {@code hol.slow} or without. */
    private static List<Long> quickLateness(String mode, boolean saturated) throws InterruptedException {
        Journal journal = new Journal();
        try (Instances instances = new Instances(DeployApp.class, journal, "delay.mode=" + mode, "deploy.hol=true",
                "delay.worker.threads=4")) {
            DelayQueue queue = instances.start().getBean(DelayQueue.class);
            if (saturated) {
                List<TaskRequest> backlog = new ArrayList<>();
                for (int i = 0; i < 1_000; i++) {
                    backlog.add(TaskRequest.of("hol.slow", 100L).build());
                }
                queue.scheduleAll(backlog);
                await("the slow type at its limit").atMost(30, TimeUnit.SECONDS)
                    .until(() -> journal.totalStarts() >= 3);
            }
            Thread.sleep(1_000); // settled: the backlog's first claims are behind it
            List<Long> quick = new ArrayList<>();
            for (int i = 0; i < QUICK_TASKS; i++) {
                quick.add(queue.schedule("hol.quick", "q" + i, Duration.ofMillis(100)));
                Thread.sleep(20);
            }
            await("every quick task started").atMost(60, TimeUnit.SECONDS).pollInterval(100, TimeUnit.MILLISECONDS)
                .until(() -> quick.stream().allMatch(id -> !journal.startsOf(id).isEmpty()));
            List<Long> lateness = new ArrayList<>();
            for (long id : quick) {
                Journal.Start first = journal.startsOf(id).stream()
                    .min(Comparator.comparingLong(Journal.Start::startedAt))
                    .orElseThrow();
                lateness.add(first.startedAt() - first.dueAt());
            }
            return lateness;
        }
    }

    private static long p99(List<Long> lateness) {
        List<Long> sorted = lateness.stream().sorted().toList();
        return sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1);
    }
}
