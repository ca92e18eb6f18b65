package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.store.DueTask;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the time index in step with the database and tolerates its absence: a failed write is logged and left to
 * the sweep, since the row is already committed. It logs once when the index becomes unreachable and once when it
 * is back, never once per call, and tells the engine so it can fall back to the database and later see the index
 * rebuilt. Tasks it could not add meanwhile are held (up to {@link #MAX_HELD}) for the repair job to add back as soon
 * as the index answers, so that they need not wait for the shared rebuild.
 */
final class Indexer {

    /** Tasks held back while the index is unreachable, at most; past that the shared rebuild alone restores them. */
    static final int MAX_HELD = 10_000;

    private static final Logger log = LoggerFactory.getLogger(Indexer.class);

    private final TimeIndex index;

    private final TaskEvents events;

    private final AtomicBoolean available = new AtomicBoolean(true);

    /** Set when the index came back and has not been rebuilt from the database since. */
    private final AtomicBoolean rebuildNeeded = new AtomicBoolean(false);

    private final ConcurrentLinkedQueue<DueTask> held = new ConcurrentLinkedQueue<>();

    private final AtomicInteger heldCount = new AtomicInteger();

    public Indexer(TimeIndex index, TaskEvents events) {
        this.index = index;
        this.events = events;
    }

    public TimeIndex index() {
        return index;
    }

    public boolean available() {
        return available.get();
    }

    /**
     * Adds committed tasks; a failure is logged, the sweep will find them in the database. While the index is known
     * to be down this holds them at once instead of waiting for a timeout: they are added when it is back.
     */
    public void add(List<DueTask> tasks) {
        if (tasks.isEmpty()) {
            return;
        }
        if (!available()) {
            hold(tasks);
            return;
        }
        try {
            addOrThrow(tasks);
        }
        catch (RuntimeException ex) {
            // logged once by unreachable(); the rows are committed, and added back when the index is
            hold(tasks);
        }
    }

    /** Keeps tasks to add once the index is back; past {@link #MAX_HELD} the rebuild (or the sweep) has them. */
    void hold(List<DueTask> tasks) {
        for (DueTask task : tasks) {
            if (heldCount.incrementAndGet() > MAX_HELD) {
                heldCount.decrementAndGet();
                return;
            }
            held.add(task);
        }
    }

    /** Takes the tasks held while the index was unreachable. */
    List<DueTask> takeHeld() {
        List<DueTask> taken = new ArrayList<>();
        DueTask task;
        while ((task = held.poll()) != null) {
            heldCount.decrementAndGet();
            taken.add(task);
        }
        return taken;
    }

    /** Adds while a database transaction waits: a failure propagates so the transaction rolls back. */
    void addOrThrow(List<DueTask> tasks) {
        List<IndexEntry> entries = new ArrayList<>(tasks.size());
        for (DueTask task : tasks) {
            entries.add(new IndexEntry(task.id(), task.dueAt()));
        }
        try {
            index.add(entries);
            reachable();
        }
        catch (RuntimeException ex) {
            unreachable(ex);
            throw ex;
        }
    }

    /** Removes ids; a stale id left behind is harmless, the claim's compare-and-set drops it. */
    public void remove(Collection<Long> ids) {
        if (ids.isEmpty() || !available()) {
            return;
        }
        try {
            index.remove(ids);
            reachable();
        }
        catch (RuntimeException ex) {
            unreachable(ex);
        }
    }

    /** Pops due ids, or {@code null} when the index cannot be reached. */
    @Nullable Popped pop(int shard, long now, int limit) {
        try {
            Popped popped = index.pop(shard, now, limit);
            reachable();
            return popped;
        }
        catch (RuntimeException ex) {
            unreachable(ex);
            return null;
        }
    }

    /** Tries the index once while it is marked unreachable; the dispatcher never waits on a dead index. */
    void probe() {
        if (available()) {
            return;
        }
        try {
            index.size(0);
            reachable();
        }
        catch (RuntimeException ex) {
            // still down; it was logged when it went down
        }
    }

    /** Whether the index came back since it was last rebuilt; clears the flag. */
    boolean takeRebuildRequest() {
        return rebuildNeeded.getAndSet(false);
    }

    /** Asks again for the rebuild the index's return asked for, when it could not be acted on. */
    void requestRebuild() {
        rebuildNeeded.set(true);
    }

    /** This instance rebuilt the whole index from the database, {@code tasks} of them, for every instance. */
    void rebuilt(int tasks) {
        events.indexRebuilt(tasks);
    }

    private void reachable() {
        if (available.compareAndSet(false, true)) {
            rebuildNeeded.set(true);
            log.info("The time index is reachable again; it will be rebuilt from the database (one instance "
                    + "rebuilds it for all that saw it back)");
            events.indexAvailability(true);
        }
    }

    private void unreachable(RuntimeException ex) {
        if (available.compareAndSet(true, false)) {
            log.warn("The time index is unreachable ({}); running tasks from the database alone until it is back. "
                    + "No task is lost: they are all in the database.", ex.toString());
            events.indexAvailability(false);
        }
    }
}
