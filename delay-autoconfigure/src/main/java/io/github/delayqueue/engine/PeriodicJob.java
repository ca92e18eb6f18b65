package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * A job that runs every interval on a daemon thread of its own while the application context runs: for work that
 * must go on whether or not this instance runs an engine, and must not wait behind the engine's jobs. Whatever a run
 * throws, an {@link Error} included, is logged and the next run keeps its schedule: a job that stopped silently
 * would take its guarantee with it (the clock alignment, "never early").
 */
abstract class PeriodicJob implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PeriodicJob.class);

    private final String threadName;

    private final Duration interval;

    private final FailureStreak failures;

    private volatile @Nullable ScheduledExecutorService executor;

    PeriodicJob(String threadName, Duration interval) {
        this.threadName = threadName;
        this.interval = interval;
        this.failures = new FailureStreak(log, "The periodic job " + threadName);
    }

    /** One run. */
    abstract void runOnce();

    /** How long to wait before the next run, asked after each run (and before the first); the interval by default. */
    Duration nextDelay() {
        return interval;
    }

    @Override
    public void start() {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor = scheduler;
        scheduleNext(scheduler);
    }

    private void run(ScheduledExecutorService scheduler) {
        try {
            runOnce();
            failures.succeeded();
        }
        catch (Throwable ex) { // a scheduled task that throws is never run again; this one must be
            failures.failed(ex);
        }
        finally {
            if (executor == scheduler) {
                scheduleNext(scheduler);
            }
        }
    }

    private void scheduleNext(ScheduledExecutorService scheduler) {
        long delay;
        try {
            delay = Math.max(1, nextDelay().toMillis());
        }
        catch (RuntimeException | Error ex) {
            delay = Math.max(1, interval.toMillis());
        }
        try {
            scheduler.schedule(() -> run(scheduler), delay, TimeUnit.MILLISECONDS);
        }
        catch (RejectedExecutionException ex) {
            // stopped meanwhile
        }
    }

    @Override
    public void stop() {
        ScheduledExecutorService scheduler = executor;
        executor = null;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return executor != null;
    }
}
