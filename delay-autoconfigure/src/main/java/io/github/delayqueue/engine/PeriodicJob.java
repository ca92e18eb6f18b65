package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * A job that runs every interval on the starter's {@link TaskScheduler} while the application context runs: for work
 * that must go on whether or not this instance runs an engine. One run at a time, so it holds at most one of the
 * scheduler's threads and never waits behind the engine's jobs. Whatever a run throws, an {@link Error} included, is
 * logged and the next run keeps its schedule: a job that stopped silently would take its guarantee with it (the clock
 * alignment, "never early").
 */
abstract class PeriodicJob implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PeriodicJob.class);

    private final TaskScheduler scheduler;

    private final Duration interval;

    private final FailureStreak failures;

    private volatile boolean running;

    private volatile @Nullable ScheduledFuture<?> next;

    PeriodicJob(TaskScheduler scheduler, String name, Duration interval) {
        this.scheduler = scheduler;
        this.interval = interval;
        this.failures = new FailureStreak(log, "The periodic job " + name);
    }

    /** One run. */
    abstract void runOnce();

    /** How long to wait before the next run, asked after each run (and before the first); the interval by default. */
    Duration nextDelay() {
        return interval;
    }

    @Override
    public void start() {
        running = true;
        scheduleNext();
    }

    private void run() {
        try {
            runOnce();
            failures.succeeded();
        }
        catch (Throwable ex) { // a scheduled task that throws is never run again; this one must be
            failures.failed(ex);
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
            scheduled.cancel(true);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
