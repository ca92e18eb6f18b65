package io.github.delayqueue.runtime;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongConsumer;

import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.test.InMemoryTimeIndex;

/**
 * An index whose adds wait until the test counts {@link #answer} down, as a Redis that stopped answering makes them
 * wait (Lettuce's command timeout); everything else, and the adds once it answers, go to an in-memory index.
 */
final class HangingTimeIndex implements TimeIndex {

    final InMemoryTimeIndex inner = new InMemoryTimeIndex(1);

    final CountDownLatch answer = new CountDownLatch(1);

    @Override
    public int shards() {
        return inner.shards();
    }

    @Override
    public void add(List<IndexEntry> entries) {
        try {
            answer.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        inner.add(entries);
    }

    @Override
    public void remove(Collection<Long> ids) {
        inner.remove(ids);
    }

    @Override
    public Popped pop(int shard, long now, int limit) {
        return inner.pop(shard, now, limit);
    }

    @Override
    public long size(int shard) {
        return inner.size(shard);
    }

    @Override
    public void subscribe(LongConsumer listener) {
        inner.subscribe(listener);
    }

    @Override
    public void unsubscribe() {
        inner.unsubscribe();
    }
}
