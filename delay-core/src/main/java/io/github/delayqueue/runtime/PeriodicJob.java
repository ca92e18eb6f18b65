package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * A loop or job of the queue, run in rounds on the starter's {@link TaskScheduler}: the dispatcher, the result writer,
 * the engine's jobs (lease renewal, recovery, migration, index repair, retention), the index adds, the pool's timers,
 * and work that goes on whether or not this instance runs an engine (the clock alignment, the gauges' refresh). A round
 * never waits for its next one on a thread: it ends, and the next is scheduled at its due time
 * ({@link #nextDelay()}), or sooner when its owner asks ({@link #runWithin}: a wake-up, a result to write, a free
 * slot). So the scheduler needs no thread for each loop, and a small pool serves them all. One round at a time.
 * <p>
 * This is the one place that survives failures: whatever a round throws, an {@link Error} included, is logged (once
 * per streak of failures) and the next round comes after a short back-off that never exceeds half a second or the
 * interval, whatever error handler the scheduler has; meanwhile requests for an earlier round are ignored, so a
 * failing loop cannot turn hot. A loop or job that stopped silently would take its guarantee with it (lease renewal,
 * "never twice at once"; the clock alignment, "never early"). Its {@link Liveness} tells the health when it last
 * completed a round.
 * <p>
 * Rounds that may wait on the database or Redis take one of the scheduler's {@link IoLanes} first, which leave one
 * thread free for the rounds that never wait (the lease guard, claimed-ahead starts), and keep one for those that wait
 * on the database alone (lease renewal, the result writer): those go on while Redis or a slow job holds the rest.
 * Public only for the starter's own jobs in other packages (the gauges' refresh); applications have no use for it.
 */
abstract class PeriodicJob implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PeriodicJob.class);

    /** No round is scheduled. */
    private static final long NONE = Long.MAX_VALUE;

    private final TaskScheduler scheduler;

    private final Duration interval;

    private final FailureStreak failures;

    private final Liveness liveness;

    private final TaskEvents events;

    /** Where a round that may wait on the database or Redis gets its thread; {@code null} for one that never waits. */
    private final @Nullable IoLanes lanes;

    private final IoLanes.Waits waits;

    /** The lane the round under way took. */
    private IoLanes.Lane lane = IoLanes.Lane.NONE;

    private final Object lock = new Object();

    /** Guarded by {@link #lock}, as every field below. */
    private volatile boolean running;

    private boolean inRound;

    /** The last round failed: the next comes after the back-off, and no sooner. */
    private boolean backingOff;

    /** Whether this job waits for a lane ({@link IoLanes}), with nothing scheduled. */
    private boolean parked;

    /** When the next round should start ({@link System#nanoTime}), asked for during the round under way. */
    private long againAt = NONE;

    /** When the scheduled round starts ({@link System#nanoTime}); {@link #NONE} when none is scheduled. */
    private volatile long nextAt = NONE;

    private @Nullable ScheduledFuture<?> next;

    /** Which scheduling is current: a round scheduled before that starts anyway (cancelled late) ends at once. */
    private long sequence;

    private @Nullable Thread roundThread;

    PeriodicJob(TaskScheduler scheduler, String name, Duration interval) {
        this(scheduler, name, interval, TaskEvents.NONE, IoLanes.Waits.DATABASE_OR_REDIS);
    }

    PeriodicJob(TaskScheduler scheduler, String name, Duration interval, TaskEvents events, IoLanes.Waits waits) {
        this.scheduler = scheduler;
        this.interval = interval;
        this.failures = new FailureStreak(log, "The " + name);
        this.liveness = new Liveness(name, interval);
        this.events = events;
        this.waits = waits;
        this.lanes = waits == IoLanes.Waits.NOTHING ? null : IoLanes.of(scheduler);
    }

    /**
     * A job whose round is {@code body}, which may wait on the database or Redis, run as soon as it starts and then
     * every interval; a round fails when it throws.
     */
    public static PeriodicJob of(TaskScheduler scheduler, String name, Duration interval, Runnable body) {
        return new PeriodicJob(scheduler, name, interval, TaskEvents.NONE, IoLanes.Waits.DATABASE_OR_REDIS) {

            private boolean started;

            @Override
            void runOnce() {
                body.run();
            }

            @Override
            Duration nextDelay() {
                if (!started) {
                    started = true;
                    return Duration.ZERO;
                }
                return interval;
            }
        };
    }

    static PeriodicJob of(TaskScheduler scheduler, String name, Duration interval, TaskEvents events,
            IoLanes.Waits waits, Runnable body) {
        return new PeriodicJob(scheduler, name, interval, events, waits) {
            @Override
            void runOnce() {
                body.run();
            }
        };
    }

    /** A timer: a job whose round never waits on the database or Redis, so it never waits for a lane either. */
    static PeriodicJob timer(TaskScheduler scheduler, String name, Duration interval, Runnable body) {
        return new PeriodicJob(scheduler, name, interval, TaskEvents.NONE, IoLanes.Waits.NOTHING) {
            @Override
            void runOnce() {
                body.run();
            }
        };
    }

    /** One round; it failed when it throws. */
    abstract void runOnce();

    /**
     * How long to wait before the next round, asked after each round that did not fail, and before the first: the
     * interval, unless the job knows better (a loop with work left says zero).
     */
    Duration nextDelay() {
        return interval;
    }

    Liveness liveness() {
        return liveness;
    }

    @Override
    public void start() {
        synchronized (lock) {
            if (running) {
                return;
            }
            running = true;
            liveness.alive();
            if (!inRound && !parked) {
                scheduleIn(delayOf(this::nextDelay));
            }
        }
    }

    /**
     * Runs the next round within {@code nanos} from now, unless one is due sooner or the job backs off after a failed
     * round (a request during a round is kept for its end). Cheap when a round is already due in time: it is called
     * for every result and wake-up.
     */
    void runWithin(long nanos) {
        long at = System.nanoTime() + Math.max(0, nanos);
        if (dueBy(nextAt, at)) {
            return;
        }
        synchronized (lock) {
            if (!running || backingOff || parked) {
                return;
            }
            if (inRound) {
                againAt = earlier(againAt, at);
            }
            else if (!dueBy(nextAt, at)) {
                scheduleAt(at);
            }
        }
    }

    private void run(long scheduled) {
        synchronized (lock) {
            if (scheduled != sequence || !running || inRound) {
                return; // replaced by an earlier round, or stopped
            }
            next = null;
            nextAt = NONE;
            if (lanes != null) {
                lane = lanes.enter(this, waits);
                if (lane == IoLanes.Lane.NONE) {
                    parked = true; // resumed when a lane frees up
                    return;
                }
            }
            inRound = true;
            againAt = NONE;
            roundThread = Thread.currentThread();
        }
        boolean failed = false;
        try {
            runOnce();
            failures.succeeded();
            liveness.alive();
        }
        catch (Throwable ex) { // a scheduled task that throws is never run again; this one must be
            failed = true;
            if (running) {
                failures.failed(ex);
                events.workFailed(liveness.name());
            }
            else { // stopped during the round (its connection closed with the context, say): not a failure to retry,
                // nor one to count, or an alert on delay.engine.failures would fire at every stop during a purge
                log.info("The {} was stopping when its round failed; it runs again when the queue starts again: {}",
                        liveness.name(), ex.toString());
            }
        }
        finally {
            if (lanes != null) {
                lanes.leave(lane);
            }
            long delay = failed ? Math.min(interval.toNanos(), failures.backoffMillis() * 1_000_000)
                    : delayOf(this::nextDelay);
            synchronized (lock) {
                inRound = false;
                roundThread = null;
                Thread.interrupted(); // an interrupt meant for this round must not reach the scheduler's next task
                backingOff = failed;
                lock.notifyAll();
                if (running) {
                    long at = System.nanoTime() + delay;
                    scheduleAt(failed ? at : earlier(at, againAt));
                }
            }
        }
    }

    /** Called by the lanes when one is free for this parked job: it tries again at once. */
    boolean resume() {
        synchronized (lock) {
            if (!parked) {
                return false;
            }
            parked = false;
            if (!running) {
                return false;
            }
            scheduleAt(System.nanoTime());
            return true;
        }
    }

    private long delayOf(DelaySource source) {
        try {
            return Math.max(0, source.get().toNanos());
        }
        catch (RuntimeException | Error ex) {
            return interval.toNanos();
        }
    }

    private interface DelaySource {
        Duration get();
    }

    /** The earlier of two {@link System#nanoTime} instants, either of which may be {@link #NONE}. */
    private static long earlier(long one, long other) {
        if (one == NONE || other == NONE) {
            return one == NONE ? other : one;
        }
        return one - other <= 0 ? one : other;
    }

    /** Whether a round scheduled at {@code scheduled} starts by {@code at}. */
    private static boolean dueBy(long scheduled, long at) {
        return scheduled != NONE && scheduled - at <= 0;
    }

    private void scheduleIn(long nanos) {
        scheduleAt(System.nanoTime() + nanos);
    }

    /** Guarded by {@link #lock}: replaces the scheduled round by one at {@code at} ({@link System#nanoTime}). */
    private void scheduleAt(long at) {
        long current = ++sequence;
        ScheduledFuture<?> previous = next;
        if (previous != null) {
            previous.cancel(false);
        }
        try {
            nextAt = at;
            next = scheduler.schedule(() -> run(current),
                    scheduler.getClock().instant().plusNanos(Math.max(0, at - System.nanoTime())));
        }
        catch (RejectedExecutionException ex) {
            nextAt = NONE; // the scheduler is shutting down with the context
            next = null;
        }
    }

    @Override
    public void stop() {
        synchronized (lock) {
            running = false;
            sequence++;
            nextAt = NONE;
            ScheduledFuture<?> scheduled = next;
            next = null;
            if (scheduled != null) {
                scheduled.cancel(false); // a round under way ends by itself: interrupting it could break a connection
            }
        }
    }

    /** Waits up to {@code millis} for the round under way, if any, to end; {@code false} if it still runs. */
    boolean awaitRound(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        synchronized (lock) {
            while (inRound) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /**
     * Waits up to {@code millis} in all for the rounds under way of {@code jobs}, stopped already, to end: a stop
     * that returns while a round still runs lets the context close what the round uses (a purge statement would fail
     * with "Connection is closed"). Gives up quietly at the deadline or when interrupted (keeping the interrupt).
     */
    static void awaitRounds(Collection<PeriodicJob> jobs, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        try {
            for (PeriodicJob job : jobs) {
                if (!job.awaitRound(Math.max(0, (deadline - System.nanoTime()) / 1_000_000))) {
                    log.debug("The {}'s round still runs {} ms after it stopped; not waiting for it",
                            job.liveness.name(), millis);
                    return;
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops and interrupts the round under way: what a crash does. For fault tests. */
    void halt() {
        stop();
        synchronized (lock) {
            Thread thread = roundThread;
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
