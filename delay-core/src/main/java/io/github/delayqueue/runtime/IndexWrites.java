package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongConsumer;

import io.github.delayqueue.store.DueTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Adds committed rows to the time index in rounds on the engine's scheduler ({@link PeriodicJob}), called at once by
 * each add, instead of on the thread that wrote them: the rows of {@code schedule()} calls (so a caller returns once
 * its rows are committed, without a Redis round trip, and the adds of concurrent callers share one script call per
 * shard) and what the engine's own writes made pending again (retries, hand-backs, recovered leases).
 * Callers, lease renewal, the result writer and the claims wait on the database only: a Redis that hangs (Lettuce
 * waits up to its command timeout, 60 s by default) must never hold a caller, a renewal past a lease, nor a result.
 * After each add the consumers are told the earliest due time it added ({@code added}), as a wake-up told before the
 * add could have found nothing to pop. An add that fails goes to the index's repair path ({@link Indexer#add}), and a
 * row the index never got is found by the sweep. In {@code jdbc} mode there is no index and this does nothing.
 */
final class IndexWrites {

    private static final Logger log = LoggerFactory.getLogger(IndexWrites.class);

    /** At most this many ids per index call. */
    private static final int BATCH = 1_000;

    /** How often a stop looks whether the rounds have added what was queued. */
    private static final long FLUSH_POLL_MILLIS = 5;

    private final Indexer indexer;

    private final ConcurrentLinkedQueue<DueTask> queue = new ConcurrentLinkedQueue<>();

    /** Flushes the queue, started by an add and stopped by the flush that empties it. */
    private final PeriodicJob flushes;

    /** Told the earliest due time of each batch once it is in the index: the consumers' wake-up. */
    private final LongConsumer added;

    IndexWrites(Indexer indexer, TaskScheduler scheduler) {
        this(indexer, scheduler, dueAt -> {
        });
    }

    IndexWrites(Indexer indexer, TaskScheduler scheduler, LongConsumer added) {
        this.indexer = indexer;
        this.added = added;
        this.flushes = new PeriodicJob(scheduler, "index writes", Duration.ofSeconds(1),
                TaskEvents.NONE, IoLanes.Waits.DATABASE_OR_REDIS) {
            @Override
            void runOnce() {
                flush(this);
            }

            @Override
            Duration nextDelay() {
                return Duration.ZERO; // stopped when there is nothing left
            }
        };
    }

    /** Indexes these tasks, whose rows are committed, soon; returns at once. */
    void add(List<DueTask> tasks) {
        if (tasks.isEmpty()) {
            return;
        }
        queue.addAll(tasks);
        flushes.start();
        flushes.runWithin(0);
    }

    /**
     * At a stop, before the index's connections close: waits up to {@code millis} for the rounds to add what is
     * queued, and for a round under way. A stop that returned with adds queued let the application close the
     * connections under them (Spring stops Redis's connection factory after the queue; closing the runtime interrupts
     * its scheduler), and tasks scheduled just before a shutdown then waited for another instance's sweep instead of
     * their wake-up. The stopping thread never calls Redis itself: a Redis that hangs holds a round up to its command
     * timeout, and the stop for {@code millis} at most; what is left then is in the database, for the sweep. Adds
     * after this (a caller still scheduling) start the rounds again.
     */
    void flushAtStop(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        try {
            while (!queue.isEmpty() && System.nanoTime() < deadline) {
                flushes.start();
                flushes.runWithin(0);
                Thread.sleep(FLUSH_POLL_MILLIS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        PeriodicJob.awaitRounds(List.of(flushes), Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
    }

    private void flush(PeriodicJob job) {
        List<DueTask> batch;
        while (!(batch = take()).isEmpty()) {
            indexNow(batch, indexer);
            added.accept(batch.stream().mapToLong(DueTask::dueAt).min().orElseThrow());
        }
        job.stop();
        if (!queue.isEmpty()) {
            job.start(); // added after the last look: the next round takes them
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

    private List<DueTask> take() {
        List<DueTask> batch = new ArrayList<>();
        DueTask next;
        while (batch.size() < BATCH && (next = queue.poll()) != null) {
            batch.add(next);
        }
        return batch;
    }
}
