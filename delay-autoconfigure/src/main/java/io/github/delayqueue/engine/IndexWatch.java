package io.github.delayqueue.engine;

import java.time.Duration;

/**
 * Probes an unreachable time index on an instance that runs no engine ({@code delay.worker.enabled=false}). Once
 * such a producer has seen Redis fail, its {@link Indexer} stops trying so {@code schedule} never waits on a dead
 * index; without this probe nothing would ever mark the index reachable again, and every task it scheduled from then
 * on would wait for the sweep instead of its precise wake-up. Instances with an engine probe in its index repair.
 */
public class IndexWatch extends PeriodicJob {

    private final Indexer indexer;

    public IndexWatch(Indexer indexer, Duration interval) {
        super("delay-index-watch", interval);
        this.indexer = indexer;
    }

    @Override
    void runOnce() {
        indexer.probe();
    }
}
