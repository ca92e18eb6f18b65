package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * A job that runs every interval on a daemon thread of its own while the application context runs: for work that
 * must go on whether or not this instance runs an engine, and must not wait behind the engine's jobs.
 */
abstract class PeriodicJob implements SmartLifecycle {

    private final String threadName;

    private final Duration interval;

    private @Nullable ScheduledExecutorService executor;

    PeriodicJob(String threadName, Duration interval) {
        this.threadName = threadName;
        this.interval = interval;
    }

    /** One run; it must not throw, or later runs are cancelled. */
    abstract void runOnce();

    @Override
    public void start() {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        long millis = interval.toMillis();
        scheduler.scheduleWithFixedDelay(this::runOnce, millis, millis, TimeUnit.MILLISECONDS);
        executor = scheduler;
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
