package io.github.delayqueue.runtime;

import java.time.Duration;

import io.github.delayqueue.store.TaskStore;

import org.springframework.scheduling.TaskScheduler;

/**
 * Index repair on an instance that runs no engine ({@code delay.worker.enabled=false}). Once such a producer has seen
 * Redis fail, its {@link Indexer} stops trying so {@code schedule} never waits on a dead index; without this probe
 * nothing would ever mark the index reachable again, and every task it scheduled from then on would wait for the sweep
 * instead of its precise wake-up. Once Redis is back it also sees the index rebuilt like an engine does, so the tasks
 * it scheduled during its outage are indexed again even when it was cut off alone. Instances with an engine do this
 * in their engine.
 */
class IndexWatch extends PeriodicJob {

    private final IndexRepair repair;

    public IndexWatch(TaskScheduler scheduler, Indexer indexer, TaskStore store, WakeSignal wake, Duration interval) {
        super(scheduler, "index watch", interval);
        this.repair = new IndexRepair(indexer, store, wake);
    }

    @Override
    void runOnce() {
        repair.run();
    }
}
