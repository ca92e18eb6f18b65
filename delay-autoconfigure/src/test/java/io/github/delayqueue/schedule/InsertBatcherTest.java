package io.github.delayqueue.schedule;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.UnsupportedTaskStore;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How concurrent callers share writes: each gets its own rows, a waiting caller sleeps, one bad row fails one. */
class InsertBatcherTest {

    /** A store whose inserts take {@code millis} each, as a slow database's would. */
    private static class SlowInserts extends UnsupportedTaskStore {

        private final long millis;

        private final AtomicLong ids = new AtomicLong();

        final AtomicInteger writes = new AtomicInteger();

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
        InsertBatcher batcher = new InsertBatcher(store, 2, rows -> {
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
        // five callers waited about 0.6 s with a slot free; parked, that costs next to nothing (spinning, all of it)
        assertThat(cpuNanos.values()).allSatisfy(nanos -> assertThat(nanos).isLessThan(50_000_000L));
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
        InsertBatcher batcher = new InsertBatcher(store, 2, rows -> {
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
        InsertBatcher batcher = new InsertBatcher(store, 1, rows -> {
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
        InsertBatcher batcher = new InsertBatcher(new SlowInserts(0), 2, rows -> {
        });
        assertThatThrownBy(() -> batcher.insert(List.of(task("poison")), 0))
            .isInstanceOf(DataIntegrityViolationException.class);
    }
}
