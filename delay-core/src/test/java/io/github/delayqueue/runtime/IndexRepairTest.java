package io.github.delayqueue.runtime;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.index.IndexRebuilds;
import io.github.delayqueue.index.IndexUnavailableException;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared-rebuild protocol of {@link IndexRepair}, on instances in one JVM that share an in-memory rebuild record
 * and a database of a few queued rows: one rebuild serves every instance that saw the index back before it began, a
 * later one is made for an instance that saw it back after, a record Redis lost never counts as a rebuild, and what
 * an instance could not index meanwhile is added back at once.
 * Redis itself is covered by {@code RedisComesBackIT}.
 */
class IndexRepairTest {

    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final SharedRecord record = new SharedRecord();

    private final List<DueTask> queued = List.of(new DueTask(1, 100), new DueTask(2, 200), new DueTask(3, 300));

    /** Runs before each page a rebuild reads, so a test can act while a rebuild is under way. */
    private Runnable beforePage = () -> {
    };

    @Test
    void oneRebuildServesEveryInstanceThatSawTheIndexBackBeforeItBegan() {
        Instance a = new Instance();
        Instance b = new Instance();
        Instance c = new Instance();
        List<Instance> all = List.of(a, b, c);
        all.forEach(Instance::outage);
        all.forEach(Instance::repair); // each sees it back and notes the rebuilds begun so far
        settle();
        all.forEach(Instance::repair);
        all.forEach(Instance::repair);

        assertThat(a.rebuilds.get() + b.rebuilds.get() + c.rebuilds.get()).isEqualTo(1);
        assertThat(a.index.added).containsExactlyInAnyOrderElementsOf(queued);
    }

    @Test
    void anInstanceThatSawTheIndexBackAfterTheRebuildBeganGetsAnotherOne() {
        Instance a = new Instance();
        Instance late = new Instance();
        a.outage();
        late.outage();
        a.repair();
        settle();
        // while a rebuilds, the late one sees the index back: rows it committed until then may be behind a's pages
        beforePage = () -> {
            beforePage = () -> {
            };
            late.repair();
        };
        a.repair();
        assertThat(a.rebuilds).hasValue(1);
        settle();
        late.repair(); // not covered by a's rebuild, which began before it looked
        assertThat(late.rebuilds).hasValue(1);
        a.repair();
        late.repair();
        assertThat(a.rebuilds.get() + late.rebuilds.get()).isEqualTo(2);
    }

    @Test
    void whileAnotherInstanceHoldsTheLockItWaitsAndIsCoveredByThatRebuild() {
        Instance a = new Instance();
        record.tryLock("another instance", Duration.ofSeconds(15));
        a.outage();
        a.repair();
        settle();
        a.repair();
        assertThat(a.rebuilds).as("rebuilds while another holds the lock").hasValue(0);
        long number = record.begin(); // the other instance's rebuild began after a looked
        record.completed(number);
        record.unlock("another instance");
        a.repair();
        a.repair();
        assertThat(a.rebuilds).as("rebuilds once covered").hasValue(0);
    }

    @Test
    void aRebuildDuringWhichRedisLostTheRecordDoesNotCountAndIsMadeAgain() {
        Instance a = new Instance();
        a.outage();
        a.repair();
        settle();
        // Redis loses its data while the rebuild runs: the pages before went into the lost index
        beforePage = () -> {
            beforePage = () -> {
            };
            record.lose();
        };
        a.repair();
        assertThat(record.record().completed()).as("completed rebuilds on record").isZero();
        a.repair();
        a.repair();
        assertThat(a.rebuilds).as("the lost rebuild and one that counts").hasValue(2);
        assertThat(record.record().completed()).isEqualTo(1);
    }

    @Test
    void aRecordLostWhileWaitingIsReadAgainSoARebuildBegunSinceCoversTheInstance() {
        long number = record.begin();
        record.completed(number);
        Instance a = new Instance();
        a.outage();
        a.repair(); // awaits rebuild 2
        record.lose(); // Redis restarts empty: its rebuilds are numbered from 1 again
        record.tryLock("another instance", Duration.ofSeconds(15));
        settle();
        a.repair(); // sees the lost record: now awaits rebuild 1, which the other instance begins after this
        number = record.begin();
        record.completed(number);
        record.unlock("another instance");
        a.repair();
        a.repair();
        assertThat(a.rebuilds).as("rebuilds by the instance that noted the lost record").hasValue(0);
    }

    @Test
    void whatAnInstanceCouldNotIndexIsAddedBackAtOnceIfStillPendingWithoutWaitingForTheRebuild() {
        Instance a = new Instance(TimeUnit.HOURS.toNanos(1));
        a.outage();
        // held while the index is unreachable: task 1 is still queued (due 100), task 9 ran from the database
        a.indexer.add(List.of(new DueTask(1, 50), new DueTask(9, 900)));
        a.repair();
        assertThat(a.index.added).containsExactly(new DueTask(1, 100));
        assertThat(a.rebuilds).hasValue(0);
    }

    private static void settle() {
        try {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(SETTLE_NANOS) + 20);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** The database: keyset pages of {@link #queued}. */
    private TaskStore store() {
        return (TaskStore) Proxy.newProxyInstance(TaskStore.class.getClassLoader(), new Class<?>[] { TaskStore.class },
                (proxy, method, args) -> {
                    if (method.getName().equals("pendingAmong")) {
                        Collection<?> ids = (Collection<?>) args[0];
                        return queued.stream().filter(t -> ids.contains(t.id())).toList();
                    }
                    if (!method.getName().equals("pending")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    beforePage.run();
                    assertThat(args[0]).isEqualTo(TaskStatus.QUEUED);
                    DueTask after = (DueTask) args[1];
                    int limit = (int) args[2];
                    return queued.stream()
                        .filter(t -> t.dueAt() > after.dueAt() || (t.dueAt() == after.dueAt() && t.id() > after.id()))
                        .limit(limit)
                        .toList();
                });
    }

    /** One instance: its own view of the index (which it can lose), the shared record, its own repair job. */
    private final class Instance {

        final FakeIndex index = new FakeIndex();

        final AtomicInteger rebuilds = new AtomicInteger();

        final Indexer indexer = new Indexer(index, new TaskEvents() {
            @Override
            public void indexRebuilt(int tasks) {
                rebuilds.incrementAndGet();
            }
        });

        final IndexRepair repair;

        Instance() {
            this(SETTLE_NANOS);
        }

        Instance(long settleNanos) {
            repair = new IndexRepair(indexer, store(), new WakeSignal(new QueueClock(Clock.systemUTC())), settleNanos);
        }

        /** Redis goes away and comes back: the instance noticed the first, its next repair notices the second. */
        void outage() {
            index.down = true;
            indexer.pop(0, 0, 1);
            assertThat(indexer.available()).isFalse();
            index.down = false;
        }

        void repair() {
            repair.run();
        }
    }

    private final class FakeIndex implements TimeIndex {

        volatile boolean down;

        final List<DueTask> added = new ArrayList<>();

        private void check() {
            if (down) {
                throw new IndexUnavailableException("down", new IllegalStateException("down"));
            }
        }

        @Override
        public int shards() {
            return 1;
        }

        @Override
        public void add(List<IndexEntry> entries) {
            check();
            entries.forEach(e -> added.add(new DueTask(e.id(), e.dueAt())));
        }

        @Override
        public void remove(Collection<Long> ids) {
            check();
        }

        @Override
        public Popped pop(int shard, long now, int limit) {
            check();
            return new Popped(List.of(), null);
        }

        @Override
        public long size(int shard) {
            check();
            return 0;
        }

        @Override
        public void subscribe(LongConsumer listener) {
        }

        @Override
        public void unsubscribe() {
        }

        @Override
        public IndexRebuilds rebuilds() {
            return record;
        }
    }

    /** The rebuild record as Redis keeps it, lost whole when Redis loses its data. */
    private static final class SharedRecord implements IndexRebuilds {

        private long started;

        private long completed;

        private @Nullable String lock;

        synchronized void lose() {
            started = 0;
            completed = 0;
            lock = null;
        }

        @Override
        public synchronized Record record() {
            return new Record(started, completed);
        }

        @Override
        public synchronized boolean tryLock(String token, Duration ttl) {
            if (lock != null) {
                return false;
            }
            lock = token;
            return true;
        }

        @Override
        public synchronized boolean extendLock(String token, Duration ttl) {
            return token.equals(lock);
        }

        @Override
        public synchronized void unlock(String token) {
            if (token.equals(lock)) {
                lock = null;
            }
        }

        @Override
        public synchronized long begin() {
            return ++started;
        }

        @Override
        public synchronized boolean completed(long number) {
            if (started < number) {
                return false;
            }
            completed = Math.max(completed, number);
            return true;
        }
    }
}
