package io.github.delayqueue.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;

/**
 * Coalesces concurrent inserts made outside any transaction into multi-row statements, the way a database groups
 * commits: a caller queues its tasks, and whichever caller finds a flush slot free writes everything queued in one
 * statement while the others wait. A lone caller writes at once, so nothing waits for company; every caller returns
 * only after its own tasks are committed, or with the statement's failure. The writer then indexes the statement's
 * rows in one call.
 */
final class InsertBatcher {

    /** Rows per coalesced statement. */
    private static final int MAX_ROWS = 1000;

    private final TaskStore store;

    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();

    /** Statements in flight at once; two let the database share one log flush between them. */
    private final Semaphore flushSlots;

    /** Told of every committed statement's rows, once per statement: the index is updated in one call, too. */
    private final Consumer<List<InsertedTask>> committed;

    InsertBatcher(TaskStore store, int concurrentFlushes, Consumer<List<InsertedTask>> committed) {
        this.store = store;
        this.flushSlots = new Semaphore(concurrentFlushes);
        this.committed = committed;
    }

    List<InsertedTask> insert(List<NewTask> tasks, long now) {
        Pending mine = new Pending(tasks, now, Thread.currentThread());
        queue.add(mine);
        while (!mine.done) {
            if (flushSlots.tryAcquire()) {
                List<InsertedTask> written;
                try {
                    written = flush();
                }
                finally {
                    flushSlots.release();
                    wakeNextWriter();
                }
                // indexed after the slot is free: the next statement need not wait for Redis
                committed.accept(written);
            }
            else {
                // woken when its tasks are written or a slot frees up; the timeout only guards a missed wake-up
                LockSupport.parkNanos(this, 2_000_000);
            }
        }
        if (mine.failure != null) {
            throw mine.failure;
        }
        return mine.result;
    }

    /** A slot is free: the oldest waiting caller takes it for what has queued up meanwhile. */
    private void wakeNextWriter() {
        Pending next = queue.peek();
        if (next != null) {
            LockSupport.unpark(next.caller);
        }
    }

    /** Writes what is queued; returns the rows it committed (none when the statement failed). */
    private List<InsertedTask> flush() {
        List<Pending> batch = new ArrayList<>();
        List<NewTask> rows = new ArrayList<>();
        long now = Long.MIN_VALUE;
        Pending next;
        while (rows.size() < MAX_ROWS && (next = queue.poll()) != null) {
            batch.add(next);
            rows.addAll(next.tasks);
            now = Math.max(now, next.now);
        }
        if (batch.isEmpty()) {
            return List.of();
        }
        try {
            List<InsertedTask> inserted = store.insert(rows, now);
            int from = 0;
            for (Pending pending : batch) {
                pending.complete(inserted.subList(from, from + pending.tasks.size()), null);
                from += pending.tasks.size();
            }
            return inserted;
        }
        catch (RuntimeException ex) {
            for (Pending pending : batch) {
                pending.complete(null, ex);
            }
            return List.of();
        }
    }

    private static final class Pending {

        final List<NewTask> tasks;

        final long now;

        final Thread caller;

        volatile boolean done;

        @Nullable List<InsertedTask> result;

        @Nullable RuntimeException failure;

        Pending(List<NewTask> tasks, long now, Thread caller) {
            this.tasks = tasks;
            this.now = now;
            this.caller = caller;
        }

        void complete(@Nullable List<InsertedTask> result, @Nullable RuntimeException failure) {
            this.result = result == null ? null : List.copyOf(result);
            this.failure = failure;
            this.done = true;
            LockSupport.unpark(caller);
        }
    }
}
