package io.github.delayqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.LongConsumer;

import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.index.IndexRebuilds;
import io.github.delayqueue.index.IndexUnavailableException;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import org.jspecify.annotations.Nullable;

/**
 * {@link TimeIndex} in memory, for tests that need an index but no Redis: the rules of {@link RedisTimeIndex}, to
 * which {@link TimeIndexContract} holds both. The index lives on a "server" that {@link #anotherInstance()} shares, so
 * several engines can use one index as they would one Redis, with wake-ups announced to every subscribed instance
 * (on the announcing thread, once the change is made) and one shared record of rebuilds. {@link #reachable(boolean)}
 * cuts every instance off from the server, or reconnects them, and {@link #flush()} loses its data as a Redis restart
 * without persistence does.
 */
public final class InMemoryTimeIndex implements TimeIndex {

    private final Server server;

    private volatile @Nullable LongConsumer listener;

    public InMemoryTimeIndex(int shards) {
        this(new Server(shards));
    }

    private InMemoryTimeIndex(Server server) {
        this.server = server;
    }

    /** Another instance's view of the same index, as another process connected to the same Redis has. */
    public InMemoryTimeIndex anotherInstance() {
        return new InMemoryTimeIndex(server);
    }

    /** Cuts every instance off from the index ({@code false}) or lets them reach it again ({@code true}). */
    public void reachable(boolean reachable) {
        server.reachable = reachable;
    }

    /** Loses every entry and the record of rebuilds, as a Redis that restarted without its data. */
    public void flush() {
        synchronized (server) {
            for (TreeSet<IndexEntry> shard : server.shards) {
                shard.clear();
            }
            server.dueById.clear();
            server.started = 0;
            server.completed = 0;
            server.lockToken = null;
        }
    }

    @Override
    public int shards() {
        return server.shards.length;
    }

    @Override
    public void add(List<IndexEntry> entries) {
        List<Long> heads = new ArrayList<>();
        synchronized (server) {
            server.check();
            Map<Integer, Long> earliestByShard = new HashMap<>();
            for (IndexEntry entry : entries) {
                earliestByShard.merge(server.shardOf(entry.id()), entry.dueAt(), Math::min);
            }
            earliestByShard.forEach((shard, earliest) -> {
                Long head = server.head(shard);
                if (head == null || earliest < head) {
                    heads.add(earliest);
                }
            });
            entries.forEach(server::put);
        }
        heads.forEach(server::announce);
    }

    @Override
    public void remove(Collection<Long> ids) {
        synchronized (server) {
            server.check();
            ids.forEach(server::drop);
        }
    }

    @Override
    public Popped pop(int shard, long now, int limit) {
        synchronized (server) {
            server.check();
            List<Long> ids = new ArrayList<>();
            for (IndexEntry entry : server.shards[shard]) {
                if (entry.dueAt() > now || ids.size() >= Math.min(limit, MAX_POP)) {
                    break;
                }
                ids.add(entry.id());
            }
            ids.forEach(server::drop);
            return new Popped(ids, server.head(shard));
        }
    }

    @Override
    public long size(int shard) {
        synchronized (server) {
            server.check();
            return server.shards[shard].size();
        }
    }

    /** The listener is kept when the index cannot be reached; {@link #keepSubscribed()} subscribes it later. */
    @Override
    public void subscribe(LongConsumer listener) {
        this.listener = listener;
        server.check();
        server.listeners.add(this);
    }

    @Override
    public boolean keepSubscribed() {
        if (listener == null || !server.reachable) {
            return false;
        }
        server.listeners.add(this);
        return true;
    }

    @Override
    public void unsubscribe() {
        listener = null;
        server.listeners.remove(this);
    }

    @Override
    public IndexRebuilds rebuilds() {
        return server;
    }

    /** The index every instance reaches, with the record of rebuilds beside it. */
    private static final class Server implements IndexRebuilds {

        final TreeSet<IndexEntry>[] shards;

        final Map<Long, Long> dueById = new HashMap<>();

        final Set<InMemoryTimeIndex> listeners = new CopyOnWriteArraySet<>();

        volatile boolean reachable = true;

        long started;

        long completed;

        @Nullable String lockToken;

        long lockUntilNanos;

        @SuppressWarnings("unchecked")
        Server(int shards) {
            if (shards < 1) {
                throw new IllegalArgumentException("shards must be at least 1: " + shards);
            }
            this.shards = new TreeSet[shards];
            for (int i = 0; i < shards; i++) {
                // by due time, then id: Redis orders equal scores by member, which the contract leaves open
                this.shards[i] = new TreeSet<>((a, b) -> a.dueAt() != b.dueAt() ? Long.compare(a.dueAt(), b.dueAt())
                        : Long.compare(a.id(), b.id()));
            }
        }

        void check() {
            if (!reachable) {
                throw new IndexUnavailableException("In-memory time index: cut off by the test",
                        new IllegalStateException("unreachable"));
            }
        }

        int shardOf(long id) {
            return (int) Math.floorMod(id, (long) shards.length);
        }

        @Nullable Long head(int shard) {
            return shards[shard].isEmpty() ? null : shards[shard].first().dueAt();
        }

        void put(IndexEntry entry) {
            drop(entry.id());
            shards[shardOf(entry.id())].add(entry);
            dueById.put(entry.id(), entry.dueAt());
        }

        void drop(long id) {
            Long due = dueById.remove(id);
            if (due != null) {
                shards[shardOf(id)].remove(new IndexEntry(id, due));
            }
        }

        void announce(long dueAt) {
            for (InMemoryTimeIndex instance : listeners) {
                LongConsumer listener = instance.listener;
                if (listener != null) {
                    listener.accept(dueAt);
                }
            }
        }

        @Override
        public synchronized Record record() {
            check();
            return new Record(started, completed);
        }

        @Override
        public synchronized boolean tryLock(String token, Duration ttl) {
            check();
            if (lockToken != null && System.nanoTime() - lockUntilNanos < 0) {
                return false;
            }
            lockToken = token;
            lockUntilNanos = System.nanoTime() + ttl.toNanos();
            return true;
        }

        @Override
        public synchronized boolean extendLock(String token, Duration ttl) {
            check();
            if (!holds(token)) {
                return false;
            }
            lockUntilNanos = System.nanoTime() + ttl.toNanos();
            return true;
        }

        @Override
        public synchronized void unlock(String token) {
            check();
            if (holds(token)) {
                lockToken = null;
            }
        }

        private boolean holds(String token) {
            return token.equals(lockToken) && System.nanoTime() - lockUntilNanos < 0;
        }

        @Override
        public synchronized long begin() {
            check();
            return ++started;
        }

        /** A record that does not know {@code number} was lost meanwhile: that rebuild does not count. */
        @Override
        public synchronized boolean completed(long number) {
            check();
            if (started < number) {
                return false;
            }
            completed = Math.max(completed, number);
            return true;
        }
    }
}
