package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.NonTransientDataAccessException;
import org.springframework.dao.NonTransientDataAccessResourceException;
import org.springframework.dao.PessimisticLockingFailureException;

/**
 * Coalesces concurrent inserts that join no transaction of their caller's ({@code TaskStore.joinsCallerTransaction}
 * said no, so each is committed at once on a connection of the store's own) into multi-row statements, the way a
 * database groups commits: a caller queues its tasks, and whichever caller finds a flush slot free writes everything
 * queued in one call of the store (all or nothing) while the others wait, parked. A lone caller writes at once, so
 * nothing waits for company. The writer hands the rows it committed to the index in one call (which queues them for
 * {@link IndexWrites}) and only then lets their callers return, so every caller returns after its own tasks are
 * committed, or with the failure of the write that held them.
 *
 * <p>A write can wait long for no fault of most of its callers: a keyed row waits for a transaction still open that
 * holds its key (as long as the database's lock wait timeout, 50 s by default on InnoDB). So a write in flight longer
 * than {@code stalledAfter} gives up its slot to the next caller (the others need not queue behind it), and a shared
 * write that the database gave up on for a lock (which stored nothing) is written again by each of its callers alone,
 * on their own threads: only the caller whose key is held waits for it.
 */
final class InsertBatcher {

    /** Rows per coalesced write. */
    private static final int MAX_ROWS = 1000;

    /**
     * Writes that gave up their slot and are still in flight, at most: each holds a connection of the application's
     * pool, and when the database stops answering every write stalls (then callers wait, as for the slots).
     */
    private static final int MAX_STALLED = 6;

    /** Longest a parked caller sleeps before it looks again; it is woken sooner, this only covers a lost wake-up. */
    private static final long PARK_NANOS = 2_000_000;

    private final TaskStore store;

    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();

    /** Writes in flight at once (but for stalled ones); two let the database share one log flush between them. */
    private final Semaphore flushSlots;

    /** Writes in flight, so that a caller can find one that stalled and take its slot. */
    private final ConcurrentLinkedQueue<Write> inFlight = new ConcurrentLinkedQueue<>();

    private final int concurrentFlushes;

    private final long stalledAfterNanos;

    /** Told of every committed write's rows, once per write: the index is updated in one call, too. */
    private final Consumer<List<InsertedTask>> committed;

    /**
     * @param stalledAfterNanos how long a write may be in flight before the next caller takes its slot: far longer
     *     than a write takes (a few milliseconds, tens on a loaded machine), so that only a write that waits for
     *     something else (a lock) gives it up; {@code Long.MAX_VALUE} for writes that wait for no lock
     */
    InsertBatcher(TaskStore store, int concurrentFlushes, long stalledAfterNanos,
            Consumer<List<InsertedTask>> committed) {
        this.store = store;
        this.flushSlots = new Semaphore(concurrentFlushes);
        this.concurrentFlushes = concurrentFlushes;
        this.stalledAfterNanos = stalledAfterNanos;
        this.committed = committed;
    }

    List<InsertedTask> insert(List<NewTask> tasks, long now) {
        Pending mine = new Pending(tasks, now, Thread.currentThread());
        queue.add(mine);
        while (!mine.done) {
            // once another caller's write holds my rows there is nothing to do but wait for it
            if (!mine.taken && (flushSlots.tryAcquire() || slotOfAStalledWrite())) {
                Write write = new Write(System.nanoTime());
                inFlight.add(write);
                List<Pending> batch;
                List<InsertedTask> written;
                try {
                    batch = take();
                    written = write(batch);
                }
                finally {
                    inFlight.remove(write);
                    if (write.holdsSlot.compareAndSet(true, false)) {
                        flushSlots.release();
                    }
                    wakeNextWriter();
                }
                try {
                    // handed to the index after the slot is free: the next write need not wait for it
                    committed.accept(written);
                }
                finally {
                    batch.forEach(Pending::finish);
                }
            }
            else {
                LockSupport.parkNanos(this, PARK_NANOS);
            }
        }
        if (mine.failure != null) {
            throw mine.failure;
        }
        if (mine.alone) {
            List<InsertedTask> written = store.insert(mine.tasks, mine.now);
            committed.accept(written);
            return written;
        }
        return Objects.requireNonNull(mine.result, "a finished write sets a result or a failure");
    }

    /**
     * Takes the slot of a write that has been in flight too long, if there is one and not too many are ({@link
     * #MAX_STALLED}); the write then frees none.
     */
    private boolean slotOfAStalledWrite() {
        if (inFlight.size() >= concurrentFlushes + MAX_STALLED) {
            return false;
        }
        long now = System.nanoTime();
        for (Write write : inFlight) {
            if (now - write.started > stalledAfterNanos && write.holdsSlot.compareAndSet(true, false)) {
                return true;
            }
        }
        return false;
    }

    /** A slot is free: the oldest caller whose rows nobody writes yet takes it for what has queued up meanwhile. */
    private void wakeNextWriter() {
        for (Pending next : queue) {
            if (!next.taken) {
                LockSupport.unpark(next.caller);
                return;
            }
        }
    }

    private List<Pending> take() {
        List<Pending> batch = new ArrayList<>();
        int rows = 0;
        Pending next;
        while (rows < MAX_ROWS && (next = queue.poll()) != null) {
            next.taken = true;
            batch.add(next);
            rows += next.tasks.size();
        }
        return batch;
    }

    /** Writes the batch; returns the rows it committed (none when the write failed). */
    private List<InsertedTask> write(List<Pending> batch) {
        if (batch.isEmpty()) {
            return List.of();
        }
        List<NewTask> rows = new ArrayList<>();
        long now = Long.MIN_VALUE;
        for (Pending pending : batch) {
            rows.addAll(pending.tasks);
            now = Math.max(now, pending.now);
        }
        try {
            List<InsertedTask> inserted = batch.size() > 1 ? store.insertShared(rows, now) : store.insert(rows, now);
            int from = 0;
            for (Pending pending : batch) {
                pending.result = List.copyOf(inserted.subList(from, from + pending.tasks.size()));
                from += pending.tasks.size();
            }
            return inserted;
        }
        catch (RuntimeException ex) {
            if (batch.size() > 1 && rejectedRows(ex)) {
                return writeEach(batch); // one caller's rows must not fail the others'
            }
            if (batch.size() > 1 && ex instanceof PessimisticLockingFailureException) {
                // a lock one caller's row waited for: each writes alone, and only that one waits for it again
                batch.forEach(pending -> pending.alone = true);
                return List.of();
            }
            batch.forEach(pending -> pending.failure = ex);
            return List.of();
        }
    }

    /** Writes each caller's rows on their own, after the database refused the shared write for its content. */
    private List<InsertedTask> writeEach(List<Pending> batch) {
        List<InsertedTask> written = new ArrayList<>();
        for (Pending pending : batch) {
            try {
                pending.result = List.copyOf(store.insert(pending.tasks, pending.now));
                written.addAll(pending.result);
            }
            catch (RuntimeException ex) {
                pending.failure = ex;
            }
        }
        return written;
    }

    /**
     * The database refused what was written (a value, a trigger, a packet too large), definitely and for good, and
     * rows of other callers may well be fine on their own. Writing them again duplicates nothing because the store
     * stored nothing when it throws anything but {@code WriteOutcomeUnknownException} ({@link TaskStore#insert}),
     * which is not one of these: it tells a lost connection by the connection, not by the exception's class.
     */
    private static boolean rejectedRows(RuntimeException ex) {
        return ex instanceof NonTransientDataAccessException
                && !(ex instanceof NonTransientDataAccessResourceException);
    }

    private static final class Pending {

        final List<NewTask> tasks;

        final long now;

        final Thread caller;

        /** Set when a write took these rows; only the writing thread sets it. */
        volatile boolean taken;

        volatile boolean done;

        @Nullable List<InsertedTask> result;

        @Nullable RuntimeException failure;

        /** The shared write gave up on a lock and stored nothing: the caller writes its rows alone. */
        boolean alone;

        Pending(List<NewTask> tasks, long now, Thread caller) {
            this.tasks = tasks;
            this.now = now;
            this.caller = caller;
        }

        /** Its write ended (and its rows are indexed): the caller may return. */
        void finish() {
            done = true;
            LockSupport.unpark(caller);
        }
    }

    /** A write in flight, and whether it still holds its slot (a caller takes the slot of one that stalled). */
    private static final class Write {

        final long started;

        final AtomicBoolean holdsSlot = new AtomicBoolean(true);

        Write(long started) {
            this.started = started;
        }
    }
}
