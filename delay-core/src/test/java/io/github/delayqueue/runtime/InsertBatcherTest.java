package io.github.delayqueue.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.UnsupportedTaskStore;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.TransientDataAccessResourceException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * How concurrent callers share writes: each gets its own rows, a waiting caller sleeps, one bad row fails one. The
 * first tests time a fake store; the later ones run on the in-memory table, whose refusals and keys are those of the
 * real store ({@code TaskStoreContract}).
 */
class InsertBatcherTest {

    /** No write in these tests is taken for a stalled one, however long the machine keeps it. */
    private static final long NEVER_STALLS = Long.MAX_VALUE;

    /** A store whose inserts take {@code millis} each, as a slow database's would. */
    private static class SlowInserts extends UnsupportedTaskStore {

        final AtomicInteger writes = new AtomicInteger();

        private final long millis;

        private final AtomicLong ids = new AtomicLong();

        SlowInserts(long millis) {
            this.millis = millis;
        }

        @Override
        public List<InsertedTask> insert(List<NewTask> tasks, long now) {
            writes.incrementAndGet();
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            if (tasks.stream().anyMatch(t -> t.payload().equals("poison"))) {
                throw new DataIntegrityViolationException("a trigger refused the row");
            }
            List<InsertedTask> inserted = new ArrayList<>();
            for (NewTask task : tasks) {
                inserted.add(new InsertedTask(ids.incrementAndGet(), true, task.status(), task.dueAt()));
            }
            return inserted;
        }
    }

    private static NewTask task(String payload) {
        return new NewTask("t", null, payload, 0, TaskStatus.SCHEDULED, null);
    }

    /**
     * Both write slots are busy (a 1 s write and a quick one) when six callers arrive; the quick slot frees first and
     * one caller writes the six rows in a 1.5 s write. Then the 1 s slot frees while the other five callers' rows are
     * still in that write: they must sleep until it ends, not take the free slot over and over to find nothing.
     */
    @Test
    void callersWaitingForAnotherCallersWriteSleepInsteadOfSpinning() throws Exception {
        SlowInserts store = new SlowInserts(0) {
            @Override
            public List<InsertedTask> insert(List<NewTask> tasks, long now) {
                String first = tasks.get(0).payload();
                sleep(first.equals("slow") ? 1_000 : first.equals("quick") ? 100 : 1_500);
                return super.insert(tasks, now);
            }
        };
        InsertBatcher batcher = new InsertBatcher(store, 2, NEVER_STALLS, rows -> {
        });
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> cpuNanos = new ConcurrentHashMap<>();
        List<Thread> callers = new ArrayList<>();
        callers.add(caller(batcher, mx, cpuNanos, "slow"));
        Thread.sleep(30);
        callers.add(caller(batcher, mx, cpuNanos, "quick"));
        Thread.sleep(30);
        for (int i = 0; i < 6; i++) {
            callers.add(caller(batcher, mx, cpuNanos, "p" + i));
        }
        for (Thread caller : callers) {
            caller.join(20_000);
        }

        assertThat(cpuNanos).hasSize(8);
        assertThat(store.writes.get()).as("writes: slow, quick, the six together").isEqualTo(3);
        // five callers waited about 0.6 s with a slot free; parked, that costs next to nothing (spinning, all of it:
        // with seven spinners sharing 2 cores, over 250 ms each). The bound leaves room for a first call's class
        // loading on a loaded 2-core machine (53 ms seen once in CI).
        assertThat(cpuNanos.values()).allSatisfy(nanos -> assertThat(nanos).isLessThan(120_000_000L));
    }

    private static Thread caller(InsertBatcher batcher, ThreadMXBean mx, Map<String, Long> cpuNanos,
            String payload) {
        Thread thread = new Thread(() -> measure(batcher, mx, cpuNanos, payload));
        thread.start();
        return thread;
    }

    private static void measure(InsertBatcher batcher, ThreadMXBean mx, Map<String, Long> cpuNanos,
            String payload) {
        long before = mx.getCurrentThreadCpuTime();
        batcher.insert(List.of(task(payload)), 0);
        cpuNanos.put(payload, mx.getCurrentThreadCpuTime() - before);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void concurrentCallersEachGetTheirOwnRows() throws Exception {
        SlowInserts store = new SlowInserts(20);
        InsertBatcher batcher = new InsertBatcher(store, 2, NEVER_STALLS, rows -> {
        });
        List<Thread> callers = new ArrayList<>();
        Map<String, Long> idByPayload = new ConcurrentHashMap<>();
        for (int i = 0; i < 16; i++) {
            String payload = "p" + i;
            Thread caller = new Thread(() -> idByPayload.put(payload, batcher.insert(List.of(task(payload)), 0)
                .get(0)
                .id()));
            caller.start();
            callers.add(caller);
        }
        for (Thread caller : callers) {
            caller.join(20_000);
        }
        assertThat(idByPayload).hasSize(16);
        assertThat(idByPayload.values()).doesNotHaveDuplicates();
        assertThat(store.writes.get()).isLessThan(16); // coalesced
    }

    @Test
    void aRowTheDatabaseRefusesFailsOnlyItsOwnCaller() throws Exception {
        SlowInserts store = new SlowInserts(100);
        InsertBatcher batcher = new InsertBatcher(store, 1, NEVER_STALLS, rows -> {
        });
        // keep the only slot busy, so the next callers queue up and share one write
        Thread first = new Thread(() -> batcher.insert(List.of(task("first")), 0));
        first.start();
        Thread.sleep(30);
        Map<String, Object> outcome = new ConcurrentHashMap<>();
        List<Thread> callers = new ArrayList<>();
        for (String payload : List.of("a", "poison", "b")) {
            Thread caller = new Thread(() -> {
                try {
                    outcome.put(payload, batcher.insert(List.of(task(payload)), 0).get(0).id());
                }
                catch (RuntimeException ex) {
                    outcome.put(payload, ex);
                }
            });
            caller.start();
            callers.add(caller);
        }
        first.join();
        for (Thread caller : callers) {
            caller.join(20_000);
        }
        assertThat(outcome.get("a")).isInstanceOf(Long.class);
        assertThat(outcome.get("b")).isInstanceOf(Long.class);
        assertThat(outcome.get("poison")).isInstanceOf(DataIntegrityViolationException.class);
    }

    @Test
    void aFailedWriteFailsEveryCallerWhoseRowsItHeld() {
        InsertBatcher batcher = new InsertBatcher(new SlowInserts(0), 2, NEVER_STALLS, rows -> {
        });
        assertThatThrownBy(() -> batcher.insert(List.of(task("poison")), 0))
            .isInstanceOf(DataIntegrityViolationException.class);
    }

    // --- on the in-memory store: the table's own all-or-nothing and key rules ---------------------------------

    /** Callers behind a write that holds the only slot queue up, and then share one write. */
    @Test
    void callersSchedulingOneKeyAtOnceAllGetTheOneTaskAndOneOfThemCreatedIt() throws Exception {
        GatedStore store = new GatedStore();
        InsertBatcher batcher = new InsertBatcher(store, 1, NEVER_STALLS, rows -> {
        });
        Thread first = start(() -> batcher.insert(List.of(keyed("first")), 0));
        store.firstWriteArrived.await();
        Map<Integer, InsertedTask> answers = new ConcurrentHashMap<>();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int caller = i;
            callers.add(start(() -> answers.put(caller, batcher.insert(List.of(keyed("k")), 0).get(0))));
        }
        awaitParked(callers);

        store.gate.countDown();
        join(first);
        join(callers);

        assertThat(store.writes).as("rows per write").containsExactly(1, 6);
        assertThat(answers.values()).extracting(InsertedTask::id)
            .containsOnly(store.find("t", "k").orElseThrow().id());
        assertThat(answers.values()).filteredOn(InsertedTask::created).hasSize(1);
    }

    @Test
    void everyCallerReturnsOnlyOnceItsRowsAreCommittedAndIndexed() throws Exception {
        InMemoryTaskStore store = new InMemoryTaskStore();
        List<List<InsertedTask>> indexedWrites = new CopyOnWriteArrayList<>();
        Set<Long> indexed = ConcurrentHashMap.newKeySet();
        List<Long> indexedBeforeCommitted = new CopyOnWriteArrayList<>();
        InsertBatcher batcher = new InsertBatcher(store, 2, NEVER_STALLS, rows -> {
            rows.stream()
                .filter(row -> store.find(row.id()).isEmpty())
                .forEach(row -> indexedBeforeCommitted.add(row.id()));
            indexedWrites.add(rows);
            rows.forEach(row -> indexed.add(row.id()));
        });
        List<Long> returnedBeforeIndexed = new CopyOnWriteArrayList<>();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            callers.add(start(() -> batcher.insert(List.of(task("a"), task("b"), task("c")), 0)
                .stream()
                .filter(row -> !indexed.contains(row.id()) || store.find(row.id()).isEmpty())
                .forEach(row -> returnedBeforeIndexed.add(row.id()))));
        }
        join(callers);

        assertThat(returnedBeforeIndexed).isEmpty();
        assertThat(indexedBeforeCommitted).isEmpty();
        assertThat(indexedWrites.stream().flatMap(List::stream).map(InsertedTask::id)).as("once per write")
            .hasSize(96)
            .doesNotHaveDuplicates();
        assertThat(store.all()).hasSize(96);
    }

    @Test
    void aRowTheTableRefusesFailsOnlyItsCallerAndTheOthersAreWrittenAlone() throws Exception {
        GatedStore store = new GatedStore();
        String tooLong = "x".repeat(200);
        Map<String, Object> outcome = shareOneWrite(store, List.of("a", tooLong, "b"),
                type -> new NewTask(type, null, "{}", 0, TaskStatus.SCHEDULED, null));

        assertThat(store.writes).as("rows per write: the shared one refused, then each alone")
            .containsExactly(1, 3, 1, 1, 1);
        assertThat(outcome.get("a")).isInstanceOf(Long.class);
        assertThat(outcome.get("b")).isInstanceOf(Long.class);
        assertThat(outcome.get(tooLong)).isInstanceOf(DataIntegrityViolationException.class);
        assertThat(store.all()).extracting(TaskView::type).containsExactlyInAnyOrder("t", "a", "b");
    }

    /** A failure of the database, not of a row: every caller of the write gets it, and nothing is stored. */
    @Test
    void aWriteTheDatabaseFailsFailsEveryCallerWhoseRowsItHeld() throws Exception {
        GatedStore store = new GatedStore();
        store.failFromWrite = 2;
        InsertBatcher batcher = new InsertBatcher(store, 1, NEVER_STALLS, rows -> {
        });
        Thread first = start(() -> batcher.insert(List.of(task("first")), 0));
        store.firstWriteArrived.await();
        List<Object> outcomes = new CopyOnWriteArrayList<>();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            callers.add(start(() -> {
                try {
                    outcomes.add(batcher.insert(List.of(task("p")), 0));
                }
                catch (RuntimeException ex) {
                    outcomes.add(ex);
                }
            }));
        }
        awaitParked(callers);

        store.gate.countDown();
        join(first);
        join(callers);

        assertThat(store.writes).containsExactly(1, 3);
        assertThat(outcomes).hasSize(3)
            .allSatisfy(outcome -> assertThat(outcome).isInstanceOf(TransientDataAccessResourceException.class));
        assertThat(store.all()).as("the first caller's row alone").hasSize(1);
    }

    /**
     * A write that waits long (for a lock a transaction still open holds, say) gives up its slot: the callers after it
     * do not queue behind it. Before, they waited for it, as long as it took (InnoDB: 50 s by default).
     */
    @Test
    void callersAfterAWriteThatStallsDoNotWaitForIt() throws Exception {
        GatedStore store = new GatedStore();
        InsertBatcher batcher = new InsertBatcher(store, 1, Duration.ofMillis(50).toNanos(), rows -> {
        });
        Thread stalled = start(() -> batcher.insert(List.of(task("stalled")), 0));
        store.firstWriteArrived.await();
        try {
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                callers.add(start(() -> batcher.insert(List.of(task("after")), 0)));
            }
            join(callers);
            assertThat(stalled.isAlive()).as("the stalled write is still in flight").isTrue();
        }
        finally {
            store.gate.countDown();
        }
        join(stalled);
        assertThat(store.all()).hasSize(5);
    }

    /**
     * When the database stops answering, every write stalls: callers take the slots of stalled writes only up to a
     * bound, each write holding a connection of the application's pool, and then wait as for the slots.
     */
    @Test
    void stalledWritesGiveUpTheirSlotsOnlyUpToABound() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger writes = new AtomicInteger();
        InMemoryTaskStore store = new InMemoryTaskStore() {
            @Override
            public List<InsertedTask> insert(List<NewTask> tasks, long now) {
                writes.incrementAndGet();
                try {
                    gate.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                return super.insert(tasks, now);
            }
        };
        InsertBatcher batcher = new InsertBatcher(store, 1, Duration.ofMillis(20).toNanos(), rows -> {
        });
        List<Thread> callers = new ArrayList<>();
        try {
            for (int i = 1; i <= 7; i++) {
                callers.add(start(() -> batcher.insert(List.of(task("p")), 0)));
                int started = i;
                await().atMost(Duration.ofSeconds(10)).until(() -> writes.get() == started);
            }
            List<Thread> beyond = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                beyond.add(start(() -> batcher.insert(List.of(task("p")), 0)));
            }
            callers.addAll(beyond);
            awaitParked(beyond);
            Thread.sleep(200); // ten times the stall: long enough to take a slot, were it allowed
            assertThat(writes.get()).as("the slot's write and six stalled ones").isEqualTo(7);
        }
        finally {
            gate.countDown();
        }
        join(callers);
        assertThat(store.all()).hasSize(10);
    }

    /**
     * A shared write that the database gave up on for a lock (it stored nothing) is written again by each caller
     * alone: only the caller whose row waits for the lock gets the failure. Before, every caller of the write got it.
     */
    @Test
    void aSharedWriteRefusedForALockIsWrittenAgainByEachCallerAlone() throws Exception {
        GatedStore store = new GatedStore();
        store.lockedPayload = "held";
        Map<String, Object> outcome = shareOneWrite(store, List.of("a", "held", "b"), InsertBatcherTest::task);

        assertThat(store.writes).as("rows per write: the shared one refused, then each alone")
            .containsExactly(1, 3, 1, 1, 1);
        assertThat(outcome.get("a")).isInstanceOf(Long.class);
        assertThat(outcome.get("b")).isInstanceOf(Long.class);
        assertThat(outcome.get("held")).isInstanceOf(CannotAcquireLockException.class);
        assertThat(store.all()).as("first, a and b").hasSize(3);
    }

    /**
     * One caller's task each, of {@code names}, queued behind a first write that holds the only slot, so that they
     * share the next write; what each call returned (its id) or threw, by name.
     */
    private static Map<String, Object> shareOneWrite(GatedStore store, List<String> names,
            Function<String, NewTask> task) throws Exception {
        InsertBatcher batcher = new InsertBatcher(store, 1, NEVER_STALLS, rows -> {
        });
        Thread first = start(() -> batcher.insert(List.of(task("first")), 0));
        store.firstWriteArrived.await();
        Map<String, Object> outcome = new ConcurrentHashMap<>();
        List<Thread> callers = new ArrayList<>();
        for (String name : names) {
            callers.add(start(() -> {
                try {
                    outcome.put(name, batcher.insert(List.of(task.apply(name)), 0).get(0).id());
                }
                catch (RuntimeException ex) {
                    outcome.put(name, ex);
                }
            }));
        }
        awaitParked(callers);

        store.gate.countDown();
        join(first);
        join(callers);
        return outcome;
    }

    private static NewTask keyed(String key) {
        return new NewTask("t", key, "{}", 0, TaskStatus.SCHEDULED, null);
    }

    private static Thread start(Runnable caller) {
        Thread thread = new Thread(caller);
        thread.start();
        return thread;
    }

    private static void join(Thread thread) throws InterruptedException {
        thread.join(20_000);
        assertThat(thread.isAlive()).as("%s returned", thread.getName()).isFalse();
    }

    private static void join(List<Thread> threads) throws InterruptedException {
        for (Thread thread : threads) {
            join(thread);
        }
    }

    /** Waits until every caller has queued its rows and parked: the write in flight holds the only slot. */
    private static void awaitParked(List<Thread> callers) {
        await().atMost(Duration.ofSeconds(10)).until(() -> callers.stream()
            .allMatch(caller -> caller.getState() == Thread.State.TIMED_WAITING
                    || caller.getState() == Thread.State.WAITING));
    }

    /**
     * The in-memory table, whose first write waits until the test opens the gate; from write {@code failFromWrite}
     * on (counting from 1) every write fails as a database that went away does.
     */
    private static final class GatedStore extends InMemoryTaskStore {

        final CountDownLatch firstWriteArrived = new CountDownLatch(1);

        final CountDownLatch gate = new CountDownLatch(1);

        final List<Integer> writes = new CopyOnWriteArrayList<>();

        volatile int failFromWrite = Integer.MAX_VALUE;

        /** A write with this payload fails as one that waited too long for a lock does (storing nothing). */
        volatile @Nullable String lockedPayload;

        @Override
        public List<InsertedTask> insert(List<NewTask> tasks, long now) {
            writes.add(tasks.size());
            if (writes.size() == 1) {
                firstWriteArrived.countDown();
                try {
                    gate.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            if (writes.size() >= failFromWrite) {
                throw new TransientDataAccessResourceException("the database went away");
            }
            if (tasks.stream().anyMatch(task -> task.payload().equals(lockedPayload))) {
                throw new CannotAcquireLockException("Lock wait timeout exceeded");
            }
            return super.insert(tasks, now);
        }
    }
}
