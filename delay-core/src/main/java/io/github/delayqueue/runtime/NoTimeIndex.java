package io.github.delayqueue.runtime;

import java.util.Collection;
import java.util.List;
import java.util.function.LongConsumer;

import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.index.TimeIndex;

/**
 * The time index of jdbc mode: none. Its tiers never make a task {@code QUEUED}, so nothing is ever added; the parts
 * that index, remove or subscribe call it as they call Redis in hybrid mode, and the mode is asked in one place, the
 * {@link Tiers}.
 */
final class NoTimeIndex implements TimeIndex {

    @Override
    public int shards() {
        return 1;
    }

    @Override
    public void add(List<IndexEntry> entries) {
    }

    @Override
    public void remove(Collection<Long> ids) {
    }

    @Override
    public Popped pop(int shard, long now, int limit) {
        return new Popped(List.of(), null);
    }

    @Override
    public long size(int shard) {
        return 0;
    }

    @Override
    public void subscribe(LongConsumer listener) {
    }

    @Override
    public void unsubscribe() {
    }
}
