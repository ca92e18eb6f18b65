package io.github.delayqueue.engine;

import java.util.List;

import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves {@code SCHEDULED} tasks that now fall due within the hybrid threshold into the time index and marks them
 * {@code QUEUED}, in batches whose rows are locked with {@code SKIP LOCKED}, so several instances share the work.
 * While the index is unreachable it does nothing: those tasks stay in the database, where the dispatcher finds them.
 */
final class Migrator implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Migrator.class);

    private final TaskStore store;

    private final Indexer indexer;

    private final Tiers tiers;

    private final QueueClock clock;

    private final int batchSize;

    private final WakeSignal wake;

    private final TaskEvents events;

    private final FailureStreak failures = new FailureStreak(log, "Migrating tasks into the time index");

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
        if (!indexer.available()) {
            return;
        }
        try {
            List<DueTask> moved;
            do {
                long now = clock.now();
                moved = store.migrate(now + tiers.thresholdMillis(), batchSize, now, indexer::addOrThrow);
                if (!moved.isEmpty()) {
                    events.migrated(moved.size());
                    wake.dueAt(moved.get(0).dueAt());
                }
            }
            while (moved.size() == batchSize);
            failures.succeeded();
        }
        catch (RuntimeException ex) {
            failures.failed(ex);
        }
    }
}
