package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalDouble;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Deletes finished tasks once their status is older than its retention, a bounded batch per statement so a large
 * backlog never holds long locks, for up to one interval per run, on one instance at a time (the store takes a lock):
 * the others skip the run. Oldest first, by when the status last changed. Paced by need: a round deletes a batch of
 * each status, and the next round of the run comes after a pause in proportion to the round, so that the purge takes
 * the share of the database's time that deletes a quarter more than comes in ({@link Arrivals}, against how fast its
 * rounds delete): the table does not grow, a backlog (millions of rows after an outage, a retention shortened, a soak's
 * preloaded table) shrinks, and the consumers keep the rest. Half the time at most (and when what comes in is unknown,
 * as when this instance claimed nothing for a minute), a fifth at least, however little comes in. A round slowed by a
 * busy database is followed by a longer pause, as {@link Pacing} pauses. A run that ends with rows left is followed by
 * the next after the pause, not after an interval. The pause is between rounds, not in one: a run holds no scheduler
 * thread, nor a lane of the rounds that wait on the database or Redis ({@link IoLanes}), while it pauses, so on a small
 * scheduler the claims are not held up for a whole run.
 */
final class RetentionPurge implements Runnable {

    /**
     * How many times what comes in a purge with a backlog deletes: the table shrinks by a quarter of the arrivals, and
     * keeps up when they grow by that much before the rate follows.
     */
    static final double KEEP_UP = 1.25;

    /** The least share of the database's time a backlog gets, however little comes in. */
    static final double LEAST_SHARE = 0.2;

    /** The most share of the database's time the purge takes, however much comes in: the consumers keep half. */
    static final double MOST_SHARE = 0.5;

    /** The weight of the last round in the average speed of rounds: a few rounds even out one slowed by chance. */
    static final double SPEED_WEIGHT = 0.25;

    private static final Logger log = LoggerFactory.getLogger(RetentionPurge.class);

    private final TaskStore store;

    private final Map<TaskStatus, Duration> retention;

    private final int batchSize;

    private final QueueClock clock;

    private final Duration interval;

    private final Arrivals arrivals;

    /** The run under way, between its rounds; {@code null} between runs. Touched by one round at a time. */
    private @Nullable Run run;

    /**
     * How fast rounds delete, in rows a second of their own time, averaged over the last rounds that deleted any
     * ({@link #SPEED_WEIGHT}); NaN until one did.
     */
    private double rowsPerRoundSecond = Double.NaN;

    /** The pause before the next round: of the run under way, or of the next run when the last one left a backlog. */
    private long pauseNanos;

    /**
     * Whether the last run ended at its deadline with rows still to delete: the next run starts after the pause, not
     * after an interval. Otherwise a backlog (a preloaded table, or finished tasks arriving faster than one run an
     * interval deletes them) would be purged every other interval, and the table would grow while the purge idles.
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
     * pause, at the pace of every other round, not an interval's idle between runs. {@code arrivals}: what comes in,
     * from the claims of this instance's dispatcher.
     */
    RetentionPurge(TaskStore store, EngineSettings.Retention retention, QueueClock clock, Arrivals arrivals) {
        this.store = store;
        this.retention = Map.copyOf(retention.byStatus());
        this.batchSize = retention.batchSize();
        this.clock = clock;
        this.interval = retention.interval();
        this.arrivals = arrivals;
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
        long roundNanos = System.nanoTime() - started;
        current.deleted += Math.max(round, 0);
        if (round > 0) {
            double speed = round * 1e9 / Math.max(roundNanos, 1);
            rowsPerRoundSecond = Double.isNaN(rowsPerRoundSecond) ? speed
                    : rowsPerRoundSecond + SPEED_WEIGHT * (speed - rowsPerRoundSecond);
        }
        // a round below a full batch left nothing of any status; -1: another instance is purging
        pauseNanos = pauseNanos(Pacing.pauseNanos(started), share(arrivals.perSecond(), rowsPerRoundSecond));
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

    /**
     * The share of the database's time the purge takes: {@link #KEEP_UP} times what comes in, over how fast its rounds
     * delete ({@code rowsPerRoundSecond}: rows a second of a round's own time), between {@link #LEAST_SHARE} and
     * {@link #MOST_SHARE}; the most when either is unknown.
     */
    static double share(OptionalDouble arrivalsPerSecond, double rowsPerRoundSecond) {
        if (arrivalsPerSecond.isEmpty() || !(rowsPerRoundSecond > 0)) {
            return MOST_SHARE;
        }
        double needed = KEEP_UP * arrivalsPerSecond.getAsDouble() / rowsPerRoundSecond;
        return Math.max(LEAST_SHARE, Math.min(MOST_SHARE, needed));
    }

    /**
     * The pause after a round that took {@code roundNanos} (at most {@link Pacing#MAX_PAUSE_NANOS}) for the purge to
     * take {@code share} of the time: in proportion to the round, so a round slowed by a busy database is followed by a
     * longer pause, as {@link Pacing} pauses; at most {@link Pacing#MAX_PAUSE_NANOS}, unless the round took longer.
     */
    static long pauseNanos(long roundNanos, double share) {
        long paced = (long) (roundNanos * (1 - share) / share);
        return Math.max(Math.min(roundNanos, Pacing.MAX_PAUSE_NANOS), Math.min(paced, Pacing.MAX_PAUSE_NANOS));
    }

    private Map<TaskStatus, Long> cutoffs(long now) {
        Map<TaskStatus, Long> cutoffs = new EnumMap<>(TaskStatus.class);
        retention.forEach((status, keep) -> cutoffs.put(status, now - keep.toMillis()));
        return cutoffs;
    }
}
