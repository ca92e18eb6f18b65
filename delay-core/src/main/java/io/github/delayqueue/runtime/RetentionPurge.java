package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Deletes finished tasks once their status is older than its retention, a bounded batch per statement so a large
 * backlog never holds long locks, for up to one interval per run, on one instance at a time (the store takes a lock):
 * the others skip the run. Oldest first, by when the status last changed. Paced ({@link Pacing}): a round deletes a
 * batch of each status, and the next round of the run comes after a pause as long as that took, so the purge of a
 * large backlog (millions of rows after an outage, or a retention shortened) takes at most half the database's time
 * from the consumers, and a run that ends with rows left is followed by the next after the pause, not after an
 * interval (at 5,000 tasks/s on a 2-core machine the purge at half time deletes barely more than arrives). The pause
 * is between rounds, not in one: a run holds no scheduler thread, nor a lane of the rounds that wait on the database
 * or Redis ({@link IoLanes}), while it pauses, so on a small scheduler the claims are not held up for a whole run.
 */
final class RetentionPurge implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(RetentionPurge.class);

    private final TaskStore store;

    private final Map<TaskStatus, Duration> retention;

    private final int batchSize;

    private final QueueClock clock;

    private final Duration interval;

    /** The run under way, between its rounds; {@code null} between runs. Touched by one round at a time. */
    private @Nullable Run run;

    /** The pause before the next round: of the run under way, or of the next run when the last one left a backlog. */
    private long pauseNanos;

    /**
     * Whether the last run ended at its deadline with rows still to delete: the next run starts after the pause, not
     * after an interval. Otherwise a backlog (a preloaded table, or finished tasks arriving faster than a run half of
     * the time deletes them) would be purged every other interval, and the table would grow while the purge idles.
     */
    private boolean backlog;

    /** A run: the cutoffs it was started with, when it ends at the latest, what it deleted so far. */
    private static final class Run {

        final Map<TaskStatus, Long> cutoffs;

        final long deadlineNanos;

        long deleted;

        Run(Map<TaskStatus, Long> cutoffs, long deadlineNanos) {
            this.cutoffs = cutoffs;
            this.deadlineNanos = deadlineNanos;
        }
    }

    /**
     * One run goes on deleting for up to the purge's interval; a backlog is purged run after run, each after the
     * pause, so a backlog takes half the database's time, not a quarter.
     */
    RetentionPurge(TaskStore store, EngineSettings.Retention retention, QueueClock clock) {
        this.store = store;
        this.retention = Map.copyOf(retention.byStatus());
        this.batchSize = retention.batchSize();
        this.clock = clock;
        this.interval = retention.interval();
    }

    /** The purge as a job on {@code scheduler}: a run every interval, in rounds of a batch of each status. */
    PeriodicJob job(TaskScheduler scheduler, TaskEvents events) {
        return new PeriodicJob(scheduler, "retention purge", interval, events, IoLanes.Waits.DATABASE_OR_REDIS) {
            @Override
            void runOnce() {
                RetentionPurge.this.run();
            }

            @Override
            Duration nextDelay() {
                return RetentionPurge.this.nextDelay();
            }
        };
    }

    /** One round: a batch of each status, starting a run when none is under way. */
    @Override
    public void run() {
        long started = System.nanoTime();
        Run current = run;
        if (current == null) {
            current = new Run(cutoffs(clock.now()), started + interval.toNanos());
            run = current;
        }
        long round = store.purge(current.cutoffs, batchSize, 0); // 0: one batch of each status
        current.deleted += Math.max(round, 0);
        // a round below a full batch left nothing of any status; -1: another instance is purging
        pauseNanos = Pacing.pauseNanos(started);
        boolean drained = round < batchSize;
        if (drained || System.nanoTime() + pauseNanos >= current.deadlineNanos) {
            run = null;
            backlog = !drained;
            if (current.deleted > 0) {
                log.debug("Purged {} finished task(s)", current.deleted);
            }
        }
    }

    /** Whether a run is under way: its next round comes after the pause. */
    boolean running() {
        return run != null;
    }

    /** After a round: the pause when its run goes on or left a backlog, else the interval until the next run. */
    Duration nextDelay() {
        return run != null || backlog ? Duration.ofNanos(pauseNanos) : interval;
    }

    private Map<TaskStatus, Long> cutoffs(long now) {
        Map<TaskStatus, Long> cutoffs = new EnumMap<>(TaskStatus.class);
        retention.forEach((status, keep) -> cutoffs.put(status, now - keep.toMillis()));
        return cutoffs;
    }
}
