package io.github.delayqueue.runtime;

import java.util.List;

import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;

/**
 * Releases follow-ups ({@code runOnceMore()}): a task {@code WAITING} for its key's running task becomes pending once
 * no live task holds the key, in the tier of its due time, and a near one goes into the time index after the write.
 * The unique index on the live key does the real work: a follow-up can only become live when no other task of its
 * key is, so the key's tasks never run two at once, whichever instance releases it. Runs every second on every
 * instance, and at once on the instance that has just written the result of a keyed task; a round with nothing
 * waiting is one indexed read.
 */
final class FollowUps implements Runnable {

    /** Follow-ups released per statement round. */
    private static final int BATCH = 500;

    private final TaskStore store;

    private final Indexer indexer;

    private final Tiers tiers;

    private final QueueClock clock;

    private final WakeSignal wake;

    FollowUps(TaskStore store, Indexer indexer, Tiers tiers, QueueClock clock, WakeSignal wake) {
        this.store = store;
        this.indexer = indexer;
        this.tiers = tiers;
        this.clock = clock;
        this.wake = wake;
    }

    @Override
    public void run() {
        List<DueTask> released;
        do {
            long now = clock.now();
            long queuedUpTo = tiers.queuedUpTo(now);
            released = store.releaseWaiting(queuedUpTo, BATCH, now);
            List<DueTask> near = released.stream().filter(task -> task.dueAt() <= queuedUpTo).toList();
            if (!near.isEmpty()) {
                indexer.add(near); // after the write; a failed add is held for the index repair
            }
            released.stream().mapToLong(DueTask::dueAt).min().ifPresent(wake::dueAt);
        }
        while (released.size() == BATCH);
    }
}
