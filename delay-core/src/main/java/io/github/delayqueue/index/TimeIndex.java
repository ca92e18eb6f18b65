package io.github.delayqueue.index;

import java.util.Collection;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * A shared, sharded index of task ids by due time. It is a hint, never the truth: an id may be missing (the sweep
 * finds the task in the database) or stale (the claim's compare-and-set drops it). Implementations throw
 * {@link IndexUnavailableException} when the index cannot be reached.
 */
public interface TimeIndex {

    /** The most ids one {@link #pop} returns, whatever its {@code limit}; the engine pops again for more. */
    int MAX_POP = 2000;

    /** How many shards the index is split into; a task lives in shard {@code id % shards()}. */
    int shards();

    /**
     * Adds entries (an existing id takes the new due time). An entry that becomes the earliest of its shard wakes
     * the consumers of every instance.
     */
    void add(List<IndexEntry> entries);

    /** Removes ids, if present. */
    void remove(Collection<Long> ids);

    /**
     * Atomically removes and returns up to {@code limit} (at most {@link #MAX_POP}) ids of {@code shard} due by
     * {@code now}.
     */
    Popped pop(int shard, long now, int limit);

    /** How many ids {@code shard} holds. */
    long size(int shard);

    /**
     * Calls {@code listener} with the due time of every new shard head announced by any instance. When the
     * subscription cannot be made now this throws {@link IndexUnavailableException} but keeps the listener, and
     * {@link #keepSubscribed()} subscribes later.
     */
    void subscribe(LongConsumer listener);

    /**
     * Checks that the subscription made by {@link #subscribe} still delivers, and subscribes again when it failed
     * or was lost; returns whether it is known to be live. The engine calls it about once a second while the index
     * answers, so it must not block for long.
     */
    default boolean keepSubscribed() {
        return true;
    }

    /**
     * The shared record of full rebuilds from the database, so that one instance rebuilds for all. By default each
     * instance rebuilds for itself.
     */
    default IndexRebuilds rebuilds() {
        return IndexRebuilds.SOLO;
    }

    /** Stops listening for wake-ups. */
    void unsubscribe();
}
