package io.github.delayqueue.engine;

import java.util.List;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches an unreachable index and, once it is back, rebuilds it from the database: every {@code QUEUED} row is
 * added again (adding an id that is already there only sets the same due time), so tasks scheduled during the outage
 * regain their precise wake-up. While the index answers it also keeps the wake-up subscription alive, which would
 * otherwise stay lost when it failed as the engine started or dropped with Redis.
 */
final class IndexRepair implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(IndexRepair.class);

    private static final int PAGE = 1000;

    private final Indexer indexer;

    private final TaskStore store;

    private final WakeSignal wake;

    IndexRepair(Indexer indexer, TaskStore store, WakeSignal wake) {
        this.indexer = indexer;
        this.store = store;
        this.wake = wake;
    }

    @Override
    public void run() {
        indexer.probe();
        if (!indexer.available()) {
            return;
        }
        try {
            indexer.index().keepSubscribed();
        }
        catch (RuntimeException ex) {
            // a hint only: consumers still wake every max-wait; tried again at the next run
        }
        if (!indexer.takeRebuildRequest()) {
            return;
        }
        try {
            int added = 0;
            DueTask after = new DueTask(0, Long.MIN_VALUE);
            List<DueTask> page;
            do {
                page = store.pending(TaskStatus.QUEUED, after, PAGE);
                if (!page.isEmpty()) {
                    indexer.addOrThrow(page);
                    added += page.size();
                    after = page.get(page.size() - 1);
                }
            }
            while (page.size() == PAGE);
            log.info("Rebuilt the time index from the database: {} queued task(s)", added);
            wake.wakeNow();
        }
        catch (RuntimeException ex) {
            log.warn("Rebuilding the time index failed ({}); will try again", ex.toString());
            indexer.requestRebuild();
        }
    }
}
