package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.store.DueTask;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Adds to the time index what the engine's own database writes made pending again (retries, hand-backs, recovered
 * leases), on a thread of the engine's scheduler, one flush at a time, instead of on the thread that wrote the rows.
 * Lease renewal, the result writer and the claims wait on the database only: a Redis that hangs (Lettuce waits up to
 * its command timeout, 60 s by default) must never hold a renewal past a lease, nor a result. An add that fails goes
 * to the index's repair path ({@link Indexer#add}), and a row the index never got is found by the sweep. In
 * {@code jdbc} mode there is no index and this does nothing.
 */
final class IndexWrites {

    private static final Logger log = LoggerFactory.getLogger(IndexWrites.class);

    /** At most this many ids per index call. */
    private static final int BATCH = 1_000;

    private final @Nullable Indexer indexer;

    private final TaskScheduler scheduler;

    private final ConcurrentLinkedQueue<DueTask> queue = new ConcurrentLinkedQueue<>();

    /** Set while a flush is scheduled or running: at most one holds a scheduler thread. */
    private final AtomicBoolean flushing = new AtomicBoolean();

    IndexWrites(@Nullable Indexer indexer, TaskScheduler scheduler) {
        this.indexer = indexer;
        this.scheduler = scheduler;
    }

    /** Indexes these tasks, whose rows are committed, soon; returns at once. */
    void add(List<DueTask> tasks) {
        if (indexer == null || tasks.isEmpty()) {
            return;
        }
        queue.addAll(tasks);
        flushSoon();
    }

    private void flushSoon() {
        if (!flushing.compareAndSet(false, true)) {
            return; // the running flush takes these too
        }
        try {
            scheduler.schedule(this::flush, scheduler.getClock().instant());
        }
        catch (RejectedExecutionException ex) {
            // the scheduler is shut down with the context: hold them for the repair of a later life, if any
            flushing.set(false);
            hold(take());
        }
    }

    private void flush() {
        try {
            List<DueTask> batch;
            while (!(batch = take()).isEmpty()) {
                indexNow(batch, Objects.requireNonNull(indexer));
            }
        }
        finally {
            flushing.set(false);
            if (!queue.isEmpty()) {
                flushSoon(); // added after the last look
            }
        }
    }

    private static void indexNow(List<DueTask> batch, Indexer indexer) {
        try {
            indexer.add(batch); // a failure holds them for the repair path
        }
        catch (Throwable ex) { // an Error must not lose the batch: the rows are committed as pending
            log.warn("Indexing {} task(s) failed unexpectedly; the index repair adds them later", batch.size(), ex);
            indexer.hold(batch);
        }
    }

    private void hold(List<DueTask> tasks) {
        if (indexer != null && !tasks.isEmpty()) {
            indexer.hold(tasks);
        }
    }

    private List<DueTask> take() {
        List<DueTask> batch = new ArrayList<>();
        DueTask next;
        while (batch.size() < BATCH && (next = queue.poll()) != null) {
            batch.add(next);
        }
        return batch;
    }
}
