package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import io.github.delayqueue.store.TaskInspector.CumulativeCounts;
import org.jspecify.annotations.Nullable;

/**
 * Suggests {@code delay.hybrid.threshold} from the delays applications actually request. A task due within the
 * threshold goes into Redis as it is scheduled; a later one waits in the database and costs a migration (a locking
 * read, a Redis write and an update) when it comes within the threshold. Precision is the same either way, so the
 * threshold trades Redis memory for database work: the advice is the shortest bucket bound that covers
 * {@value #COVERAGE_PERCENT}% of requested delays (those tasks then never migrate), lowered while the pending tasks
 * it would hold in Redis exceed a memory budget, and never below twice the migration interval.
 */
final class ThresholdAdvisor {

    /** Bucket bounds of the delay histogram and the thresholds considered, ascending. */
    static final List<Duration> BOUNDS = List.of(Duration.ofSeconds(1), Duration.ofSeconds(5),
            Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2),
            Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(15), Duration.ofMinutes(30),
            Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(6), Duration.ofHours(12), Duration.ofDays(1),
            Duration.ofDays(2), Duration.ofDays(7), Duration.ofDays(30));

    static final int COVERAGE_PERCENT = 95;

    /** Redis memory per indexed task: a sorted-set member (the id) with its score, and the set's overhead. */
    static final long BYTES_PER_TASK = 100;

    /** The most Redis memory a suggestion may cost at today's backlog: about a million indexed tasks. */
    static final long BUDGET_BYTES = 100_000_000L;

    private ThresholdAdvisor() {
    }

    /**
     * @param requested requested delays, cumulative per {@link #BOUNDS}
     * @param pendingWithin pending tasks due within each of {@link #BOUNDS} from now
     * @param migrationInterval {@code delay.hybrid.migration-interval}
     * @param current the threshold in force, or {@code null} in jdbc mode
     * @param pendingWithinCurrent pending tasks due within {@code current}
     */
    static Advice advise(CumulativeCounts requested, CumulativeCounts pendingWithin, Duration migrationInterval,
            @Nullable Duration current, long pendingWithinCurrent) {
        int floor = floorIndex(migrationInterval);
        if (requested.total() == 0) {
            Duration keep = current != null ? current
                    : BOUNDS.get(Math.max(floor, BOUNDS.indexOf(Duration.ofHours(1))));
            long tasks = current != null ? pendingWithinCurrent : pendingWithin.atOrBelow().get(BOUNDS.indexOf(keep));
            return new Advice(keep, tasks, tasks * BYTES_PER_TASK, "No task in the table carries a requested delay "
                    + "yet, so there is nothing to learn from: keep " + Texts.duration(keep) + ".");
        }
        long needed = (requested.total() * COVERAGE_PERCENT + 99) / 100;
        int cover = BOUNDS.size() - 1;
        for (int i = 0; i < BOUNDS.size(); i++) {
            if (requested.atOrBelow().get(i) >= needed) {
                cover = i;
                break;
            }
        }
        boolean coverFound = requested.atOrBelow().get(cover) >= needed;
        int chosen = Math.max(cover, floor);
        while (chosen > floor && bytes(pendingWithin, chosen) > BUDGET_BYTES) {
            chosen--;
        }
        Duration suggested = BOUNDS.get(chosen);
        long tasks = pendingWithin.atOrBelow().get(chosen);
        String sample = "of the " + Texts.count(requested.total()) + " most recent tasks";
        String coverage = percent(requested.atOrBelow().get(cover), requested.total()) + " " + sample
                + " asked for a delay of at most " + Texts.duration(BOUNDS.get(cover))
                + (coverFound ? "" : " (the rest for longer)");
        String reason;
        if (chosen < cover) {
            reason = coverage + ", but the " + Texts.count(pendingWithin.atOrBelow().get(cover))
                    + " pending tasks due within that would take about "
                    + Texts.bytes(bytes(pendingWithin, cover)) + " of Redis, over the "
                    + Texts.bytes(BUDGET_BYTES) + " budget, so " + Texts.duration(suggested)
                    + " is the longest threshold under it (" + Texts.count(tasks) + " tasks, about "
                    + Texts.bytes(tasks * BYTES_PER_TASK) + ") and longer delays reach Redis by migration.";
        }
        else if (chosen > cover) {
            reason = coverage + ", but the threshold must stay at least twice delay.hybrid.migration-interval ("
                    + Texts.duration(migrationInterval) + "), so " + Texts.duration(suggested) + ", whose "
                    + Texts.count(tasks) + " pending tasks take about "
                    + Texts.bytes(tasks * BYTES_PER_TASK) + " of Redis.";
        }
        else {
            reason = coverage + ", so a threshold of " + Texts.duration(suggested)
                    + " indexes them in Redis as they are scheduled, with no migration, and the "
                    + Texts.count(tasks) + " pending tasks due within it take about "
                    + Texts.bytes(tasks * BYTES_PER_TASK) + " of Redis at ~" + BYTES_PER_TASK
                    + " bytes each.";
        }
        return new Advice(suggested, tasks, tasks * BYTES_PER_TASK, reason);
    }

    /** The first bound at least twice the migration interval, so tasks are moved in well before they fall due. */
    private static int floorIndex(Duration migrationInterval) {
        Duration min = migrationInterval.multipliedBy(2);
        for (int i = 0; i < BOUNDS.size(); i++) {
            if (BOUNDS.get(i).compareTo(min) >= 0) {
                return i;
            }
        }
        return BOUNDS.size() - 1;
    }

    private static long bytes(CumulativeCounts pendingWithin, int index) {
        return pendingWithin.atOrBelow().get(index) * BYTES_PER_TASK;
    }

    private static String percent(long part, long total) {
        return String.format(Locale.ROOT, "%.0f%%", Math.floor(100.0 * part / total));
    }

    /**
     * @param suggested the suggested threshold
     * @param redisTasks pending tasks that would be in Redis with it now
     * @param redisBytes their estimated Redis memory
     * @param reason the reasoning, in one sentence
     */
    record Advice(Duration suggested, long redisTasks, long redisBytes, String reason) {
    }
}
