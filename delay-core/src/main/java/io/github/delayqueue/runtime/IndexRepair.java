package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.IndexRebuilds;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches an unreachable index and, once it is back, sees it rebuilt from the database: every {@code QUEUED} row is
 * added again (an id that is already there only takes the same due time), so tasks scheduled during the outage regain
 * their precise wake-up. One rebuild serves every instance ({@link IndexRebuilds}): seeing the index back, this
 * instance notes how many rebuilds had begun and waits for a later one to complete. If none has after
 * {@link #SETTLE_NANOS}, it takes the lock and rebuilds for all. The pause lets the other instances, which see Redis
 * back within about a probe interval of each other, note theirs first, so that after a shared outage one rebuild
 * serves them all; an instance that was cut off alone waits only that long for its own. Meanwhile each instance adds
 * back at once the tasks it held while it could not reach the index, so its own need not wait for the rebuild. While
 * the index answers, this also keeps the wake-up subscription alive, which would otherwise stay lost when it failed as
 * the engine started or dropped with Redis.
 */
final class IndexRepair implements Runnable {

    /** How long an instance that saw the index back leaves the others to see it too before it rebuilds. */
    static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(3);

    private static final Logger log = LoggerFactory.getLogger(IndexRepair.class);

    private static final int PAGE = 1000;

    /** Extended with every page; a holder that dies keeps the others waiting no longer than this. */
    private static final Duration LOCK_TTL = Duration.ofSeconds(15);

    private final Indexer indexer;

    private final TaskStore store;

    private final WakeSignal wake;

    private final long settleNanos;

    private final String token = UUID.randomUUID().toString();

    /** The number of the rebuild that covers this instance; 0 while it waits for none. */
    private long awaited;

    /** When it began waiting (System.nanoTime). */
    private long waitingSince;

    IndexRepair(Indexer indexer, TaskStore store, WakeSignal wake) {
        this(indexer, store, wake, SETTLE_NANOS);
    }

    IndexRepair(Indexer indexer, TaskStore store, WakeSignal wake, long settleNanos) {
        this.indexer = indexer;
        this.store = store;
        this.wake = wake;
        this.settleNanos = settleNanos;
    }

    @Override
    public void run() {
        indexer.probe();
        if (!indexer.available()) {
            return;
        }
        IndexRebuilds rebuilds = indexer.index().rebuilds();
        try {
            if (indexer.takeRebuildRequest()) {
                awaited = rebuilds.record().started() + 1;
                waitingSince = System.nanoTime();
            }
        }
        catch (RuntimeException ex) {
            indexer.requestRebuild(); // gone again before this could note it: note it when it is back
            return;
        }
        addHeld();
        try {
            indexer.index().keepSubscribed();
        }
        catch (RuntimeException ex) {
            // a hint only: consumers still wake every max-wait; tried again at the next run
        }
        if (awaited == 0) {
            return;
        }
        try {
            rebuildUnlessCovered(rebuilds);
        }
        catch (RuntimeException ex) {
            log.warn("Rebuilding the time index failed ({}); will try again", ex.toString());
        }
    }

    private void rebuildUnlessCovered(IndexRebuilds rebuilds) {
        IndexRebuilds.Record record = rebuilds.record();
        if (record.started() < awaited - 1) {
            // The record was lost with Redis's data since it was noted; any rebuild numbered from now on begins later.
            awaited = record.started() + 1;
        }
        if (record.completed() >= awaited) {
            awaited = 0;
            log.info("The time index was rebuilt from the database by another instance since this one saw it back");
            return;
        }
        if (System.nanoTime() - waitingSince < settleNanos || !rebuilds.tryLock(token, LOCK_TTL)) {
            return; // others note theirs first; or another instance rebuilds, which may cover this one
        }
        try {
            long number = rebuilds.begin();
            int added = addAllQueued(rebuilds);
            if (rebuilds.completed(number)) {
                awaited = 0;
                log.info("Rebuilt the time index from the database, for every instance that saw it back: {} queued "
                        + "task(s)", added);
            }
            else {
                log.warn("Rebuilt the time index from the database ({} queued task(s)), but Redis lost its data "
                        + "meanwhile; rebuilding again", added);
            }
            indexer.rebuilt(added);
            wake.wakeNow();
        }
        finally {
            try {
                rebuilds.unlock(token);
            }
            catch (RuntimeException ex) {
                // it expires
            }
        }
    }

    /**
     * Adds back what this instance could not add while the index was unreachable, at their current due times and
     * only while still pending (many ran from the database meanwhile): its own tasks need not wait for the rebuild.
     */
    private void addHeld() {
        List<DueTask> held = indexer.takeHeld();
        for (int from = 0; from < held.size(); from += PAGE) {
            List<DueTask> chunk = held.subList(from, Math.min(held.size(), from + PAGE));
            try {
                List<DueTask> pending = store.pendingAmong(chunk.stream().map(DueTask::id).toList());
                if (!pending.isEmpty()) {
                    indexer.addOrThrow(pending);
                }
            }
            catch (RuntimeException ex) {
                indexer.hold(held.subList(from, held.size())); // the next run tries again
                return;
            }
        }
    }

    /** Adds every {@code QUEUED} row, page by page, keeping the lock while it works. */
    private int addAllQueued(IndexRebuilds rebuilds) {
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
            // A lock that expired (a long stall) lets another instance rebuild too: wasted work, never a gap.
            rebuilds.extendLock(token, LOCK_TTL);
        }
        while (page.size() == PAGE);
        return added;
    }
}
