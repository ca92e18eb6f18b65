package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * A job that runs every interval on the starter's {@link TaskScheduler}: the engine's jobs (lease renewal, recovery,
 * migration, index repair, retention) while the engine runs, and work that must go on whether or not this instance runs
 * an engine while the context runs. One run at a time, so it holds at most one of the scheduler's threads and never
 * waits behind another job. Whatever a run throws, an {@link Error} included, is logged (once per streak of failures)
 * and the job goes on by itself, whatever error handler the scheduler has: a job that stopped silently would take its
 * guarantee with it (lease renewal, "never twice at once"; the clock alignment, "never early"). A run that failed is
 * tried again after a short back-off that never exceeds half a second or the interval, so a job sees the database or
 * Redis back within about a second. Its {@link Liveness} tells the health when it last completed a run.
 */
abstract class PeriodicJob implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PeriodicJob.class);

    private final TaskScheduler scheduler;

    private final Duration interval;

    private final FailureStreak failures;

    private final Liveness liveness;

    private final TaskEvents events;

    private volatile boolean running;

    private volatile @Nullable ScheduledFuture<?> next;

    PeriodicJob(TaskScheduler scheduler, String name, Duration interval) {
        this(scheduler, name, interval, TaskEvents.NONE);
    }

    PeriodicJob(TaskScheduler scheduler, String name, Duration interval, TaskEvents events) {
        this.scheduler = scheduler;
        this.interval = interval;
        this.failures = new FailureStreak(log, "The periodic job " + name);
        this.liveness = new Liveness(name, interval);
        this.events = events;
    }

    /** A job whose run is {@code body}; a run fails when it throws. */
    static PeriodicJob of(TaskScheduler scheduler, String name, Duration interval, TaskEvents events, Runnable body) {
        return new PeriodicJob(scheduler, name, interval, events) {
            @Override
            void runOnce() {
                body.run();
            }
        };
    }

    /** One run; it failed when it throws. */
    abstract void runOnce();

    /**
     * How long to wait before the next run, asked after each run (and before the first): the interval, or after a
     * failed run the streak's back-off when that is shorter.
     */
    Duration nextDelay() {
        return failures.failing() ? Duration.ofMillis(Math.min(interval.toMillis(), failures.backoffMillis()))
                : interval;
    }

    Liveness liveness() {
        return liveness;
    }

    @Override
    public void start() {
        running = true;
        liveness.alive();
        scheduleNext();
    }

    private void run() {
        try {
            runOnce();
            failures.succeeded();
            liveness.alive();
        }
        catch (Throwable ex) { // a scheduled task that throws is never run again; this one must be
            failures.failed(ex);
            events.workFailed(liveness.name());
        }
        finally {
            if (running) {
                scheduleNext();
            }
        }
    }

    private void scheduleNext() {
        long delay;
        try {
            delay = Math.max(1, nextDelay().toMillis());
        }
        catch (RuntimeException | Error ex) {
            delay = Math.max(1, interval.toMillis());
        }
        try {
            ScheduledFuture<?> scheduled = scheduler.schedule(this::run,
                    scheduler.getClock().instant().plusMillis(delay));
            next = scheduled;
            if (!running) {
                scheduled.cancel(false); // stopped while this run was ending
            }
        }
        catch (RejectedExecutionException ex) {
            // the scheduler is shutting down with the context
        }
    }

    @Override
    public void stop() {
        running = false;
        ScheduledFuture<?> scheduled = next;
        if (scheduled != null) {
            scheduled.cancel(false); // a run under way ends by itself: interrupting it could break a connection
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
