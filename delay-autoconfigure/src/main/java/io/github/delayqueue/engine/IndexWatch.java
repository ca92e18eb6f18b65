package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Probes an unreachable time index on an instance that runs no engine ({@code delay.worker.enabled=false}). Once
 * such a producer has seen Redis fail, its {@link Indexer} stops trying so {@code schedule} never waits on a dead
 * index; without this probe nothing would ever mark the index reachable again, and every task it scheduled from then
 * on would wait for the sweep instead of its precise wake-up. Instances with an engine probe in its index repair.
 */
public class IndexWatch implements SmartLifecycle {

    private final Indexer indexer;

    private final Duration interval;

    private @Nullable ScheduledExecutorService executor;

    public IndexWatch(Indexer indexer, Duration interval) {
        this.indexer = indexer;
        this.interval = interval;
    }

    @Override
    public void start() {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "delay-index-watch");
            thread.setDaemon(true);
            return thread;
        });
        long millis = interval.toMillis();
        scheduler.scheduleWithFixedDelay(indexer::probe, millis, millis, TimeUnit.MILLISECONDS);
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
