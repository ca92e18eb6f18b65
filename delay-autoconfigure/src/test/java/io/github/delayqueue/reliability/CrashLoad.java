package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Journal;

/**
 * The settings, the load and the lateness bound of the two crash scenarios ({@link InstanceKilledReliabilityIT},
 * {@link ProcessKilledReliabilityIT}): three instances of 4 handler threads, one of which dies mid-run.
 *
 * <p>The load fits the two survivors with room to spare on a busy 2-core machine, so lateness comes from the crash
 * alone: an overloaded queue makes every later task late by its backlog, which no promise bounds.
 */
final class CrashLoad {

    static final long LEASE_MILLIS = 3_000;

    static final long RECOVERY_INTERVAL_MILLIS = 500;

    static final long SWEEP_GRACE_MILLIS = 2_000;

    static final long SWEEP_INTERVAL_MILLIS = 500;

    /**
     * How late a first start may be (README, lateness bounds, "an instance died"): a task the dead instance had
     * claimed runs after its lease and the next recovery pass; an id it had popped from the index but not yet claimed
     * is the index's loss, found by the sweep after its grace and interval. Plus a margin for a loaded 2-core machine
     * running the instances, the database and Redis.
     */
    static final long FIRST_START_BOUND_MILLIS = Math.max(LEASE_MILLIS + RECOVERY_INTERVAL_MILLIS,
            SWEEP_GRACE_MILLIS + SWEEP_INTERVAL_MILLIS) + 2_500;

    /** Every instance's settings, the dead one's too. */
    static final String[] PROPERTIES = { "delay.worker.lease=" + LEASE_MILLIS + "ms",
            "delay.worker.recovery-interval=" + RECOVERY_INTERVAL_MILLIS + "ms", "delay.worker.threads=4",
            "delay.worker.prefetch=8", "delay.hybrid.sweep-grace=" + SWEEP_GRACE_MILLIS + "ms",
            "delay.hybrid.sweep-interval=" + SWEEP_INTERVAL_MILLIS + "ms" };

    private static final int TASKS = 300;

    private static final int SLOW_EVERY = 10;

    private static final long SLOW_MILLIS = 600;

    private CrashLoad() {
    }

    /**
     * One {@code rel.sleep} task every 30 ms for 9 s, the first a second after the call, so that none is overdue
     * before the batch is stored. 20-100 ms each and every tenth {@value #SLOW_MILLIS} ms, long enough for the test to
     * kill an instance while it surely runs one: about 2 of the survivors' 8 threads are busy, and an instance rarely
     * has all 4 of its threads on slow tasks, so a task it claimed seldom waits before it starts.
     */
    static List<TaskRequest> requests() {
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            long millis = i % SLOW_EVERY == 0 ? SLOW_MILLIS : 20 + i % 5 * 20L;
            requests.add(TaskRequest.of("rel.sleep", millis).delay(Duration.ofMillis(1_000 + i * 30L)).build());
        }
        return requests;
    }

    /**
     * The latest first start, for the test's output: how close the run came to the bound, and where the time went
     * when it did not hold.
     */
    static String latestFirstStart(Journal journal, List<Long> ids, long killedAt) {
        return ids.stream()
            .map(id -> journal.startsOf(id).stream().min(Comparator.comparingLong(Journal.Start::startedAt)))
            .flatMap(Optional::stream)
            .max(Comparator.comparingLong(start -> start.startedAt() - start.dueAt()))
            .map(start -> "the latest first start was task " + start.taskId() + "'s on " + start.instance() + ", "
                    + (start.startedAt() - start.dueAt()) + " ms after its due time (due "
                    + (start.dueAt() - killedAt) + " ms from the kill); the bound is " + FIRST_START_BOUND_MILLIS
                    + " ms")
            .orElse("no task started");
    }

    /** The slow ones among the ids {@link #requests()} were scheduled with, in request order. */
    static Set<Long> slow(List<Long> ids) {
        Set<Long> slow = new HashSet<>();
        for (int i = 0; i < ids.size(); i += SLOW_EVERY) {
            slow.add(ids.get(i));
        }
        return slow;
    }
}
