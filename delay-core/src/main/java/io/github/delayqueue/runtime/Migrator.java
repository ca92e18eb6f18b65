package io.github.delayqueue.runtime;

import java.util.List;

import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;

/**
 * Moves {@code SCHEDULED} tasks that now fall due within the hybrid threshold into the time index: marks them
 * {@code QUEUED} in batches whose rows are locked with {@code SKIP LOCKED}, so several instances share the work, and
 * adds them to the index once that transaction has committed, so no row lock is held while Redis answers. An add that
 * fails is held for the index repair, and a row the index never got is found by the sweep. While the index is
 * unreachable it does nothing: those tasks stay in the database, where the dispatcher finds them.
 */
final class Migrator implements Runnable {

    private final TaskStore store;

    private final Indexer indexer;

    private final Tiers tiers;

    private final QueueClock clock;

    private final int batchSize;

    private final WakeSignal wake;

    private final TaskEvents events;

    Migrator(TaskStore store, Indexer indexer, Tiers tiers, QueueClock clock, int batchSize, WakeSignal wake,
            TaskEvents events) {
        this.store = store;
        this.indexer = indexer;
        this.tiers = tiers;
        this.clock = clock;
        this.batchSize = batchSize;
        this.wake = wake;
        this.events = events;
    }

    @Override
    public void run() {
        List<DueTask> moved;
        do {
            if (!indexer.available()) {
                return;
            }
            long now = clock.now();
            moved = store.migrate(now + tiers.thresholdMillis(), batchSize, now);
            if (!moved.isEmpty()) {
                // after the commit: no row lock waits on Redis; a failed add is held for the index repair
                indexer.add(moved);
                events.migrated(moved.size());
                wake.dueAt(moved.get(0).dueAt());
            }
        }
        while (moved.size() == batchSize);
    }
}
