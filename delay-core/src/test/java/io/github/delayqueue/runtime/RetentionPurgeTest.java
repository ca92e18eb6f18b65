package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The purge is paced: a large backlog of finished rows (after an outage, a shortened retention, or a soak's preloaded
 * table) must not take the database from the consumers for a whole interval, which showed as minutes with a p99
 * lateness several times that of the quiet ones.
 */
class RetentionPurgeTest {

    private static final int BATCH = 100;

    private final QueueClock clock = new QueueClock(Clock.systemUTC());

    @Test
    void pausesAfterEachBatchAsLongAsItTookAndDeletesTheWholeBacklog() {
        SlowBacklog store = new SlowBacklog(5 * BATCH + 10, Duration.ofMillis(20));
        purge(store, Duration.ofMinutes(1)).run();

        assertThat(store.deleted).isEqualTo(5 * BATCH + 10);
        assertThat(store.batches).hasSize(6); // the last one found less than a batch: nothing is left
        for (int i = 1; i < store.batches.size(); i++) {
            Batch before = store.batches.get(i - 1);
            assertThat(store.batches.get(i).startNanos - before.endNanos)
                .as("the pause before batch %d, after a batch that took %d ms", i + 1,
                        TimeUnit.NANOSECONDS.toMillis(before.endNanos - before.startNanos))
                .isGreaterThanOrEqualTo(before.endNanos - before.startNanos);
        }
    }

    @Test
    void aRunEndsAfterItsIntervalAndTheNextGoesOn() {
        SlowBacklog store = new SlowBacklog(1_000 * BATCH, Duration.ofMillis(10));
        RetentionPurge purge = purge(store, Duration.ofMillis(200));
        purge.run();
        int first = store.batches.size();
        assertThat(first).as("batches in a run of 200 ms, each taking 10 ms and a pause").isBetween(2, 20);
        purge.run();
        assertThat(store.batches.size()).isGreaterThan(first);
        assertThat(store.deleted).isEqualTo((long) store.batches.size() * BATCH);
    }

    @Test
    void aRunWhileAnotherInstancePurgesMakesOneCall() {
        SlowBacklog store = new SlowBacklog(1_000 * BATCH, Duration.ZERO);
        store.lockedElsewhere = true;
        purge(store, Duration.ofMinutes(1)).run();
        assertThat(store.calls).isEqualTo(1);
        assertThat(store.deleted).isZero();
    }

    private RetentionPurge purge(SlowBacklog store, Duration interval) {
        return new RetentionPurge(store, new EngineSettings.Retention(
                Map.of(TaskStatus.SUCCEEDED, Duration.ofMinutes(1)), interval, BATCH), clock);
    }

    /** When a batch's statement began and ended ({@link System#nanoTime()}). */
    private record Batch(long startNanos, long endNanos) {
    }

    /**
     * A backlog of finished rows of one status, purged as the database store does (batch after batch for up to the
     * budget, at least one), each batch taking {@code batchTime}.
     */
    private static final class SlowBacklog extends InMemoryTaskStore {

        final List<Batch> batches = new CopyOnWriteArrayList<>();

        volatile boolean lockedElsewhere;

        int calls;

        long deleted;

        private long left;

        private final Duration batchTime;

        SlowBacklog(long backlog, Duration batchTime) {
            this.left = backlog;
            this.batchTime = batchTime;
        }

        @Override
        public long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
            calls++;
            if (lockedElsewhere) {
                return -1;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMillis);
            long total = 0;
            long batch;
            do {
                long start = System.nanoTime();
                sleep(batchTime);
                batch = Math.min(left, batchSize);
                left -= batch;
                total += batch;
                batches.add(new Batch(start, System.nanoTime()));
            }
            while (batch == batchSize && System.nanoTime() < deadline);
            deleted += total;
            return total;
        }

        private static void sleep(Duration time) {
            try {
                Thread.sleep(time.toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
