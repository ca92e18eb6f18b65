package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
        RetentionPurge purge = purge(store, Duration.ofMinutes(1));
        List<Duration> pauses = runOnce(purge);

        assertThat(store.deleted).isEqualTo(5 * BATCH + 10);
        assertThat(store.batches).hasSize(6); // the last one found less than a batch: nothing is left
        assertThat(pauses).hasSize(5);
        for (int i = 0; i < pauses.size(); i++) {
            Batch before = store.batches.get(i);
            assertThat(pauses.get(i).toNanos())
                .as("the pause before batch %d, after a batch that took %d ms", i + 2,
                        TimeUnit.NANOSECONDS.toMillis(before.endNanos - before.startNanos))
                .isGreaterThanOrEqualTo(before.endNanos - before.startNanos);
        }
        assertThat(purge.nextDelay()).as("after the run, the next comes after the interval")
            .isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void aRunEndsAfterItsIntervalAndTheNextGoesOn() {
        SlowBacklog store = new SlowBacklog(1_000 * BATCH, Duration.ofMillis(10));
        RetentionPurge purge = purge(store, Duration.ofMillis(200));
        runOnce(purge);
        int first = store.batches.size();
        assertThat(first).as("batches in a run of 200 ms, each taking 10 ms and a pause").isBetween(2, 20);
        assertThat(purge.nextDelay()).as("rows are left: the next run comes after the pause, not the interval")
            .isNotEqualTo(Duration.ofMillis(200))
            .isLessThanOrEqualTo(Duration.ofNanos(Pacing.MAX_PAUSE_NANOS));
        runOnce(purge);
        assertThat(store.batches.size()).isGreaterThan(first);
        assertThat(store.deleted).isEqualTo((long) store.batches.size() * BATCH);
    }

    @Test
    void aRunWhileAnotherInstancePurgesMakesOneCall() {
        SlowBacklog store = new SlowBacklog(1_000 * BATCH, Duration.ZERO);
        store.lockedElsewhere = true;
        runOnce(purge(store, Duration.ofMinutes(1)));
        assertThat(store.calls).isEqualTo(1);
        assertThat(store.deleted).isZero();
    }

    /**
     * With tasks coming in, a purge with a backlog deletes a quarter more than comes in, not as fast as half the
     * database's time allows: at 5,000 tasks/s on a 2-core machine, that deleted twice what arrived, taking the
     * database's time from the claims beside it.
     */
    @Test
    void withABacklogItDeletesAQuarterMoreThanComesIn() {
        SlowBacklog store = new SlowBacklog(1_000 * BATCH, Duration.ofMillis(10));
        store.arrivalsPerSecond = 2_000; // 1.25 times that: 2,500 rows a second, a round of 100 every 40 ms
        runOnce(purge(store, Duration.ofMillis(3_000)));

        // the rate is known a second after the first round's read of the store; the average speed a few rounds later
        long pacedFrom = store.batches.get(0).startNanos + TimeUnit.MILLISECONDS.toNanos(1_200);
        List<Batch> paced = store.batches.stream().filter(batch -> batch.startNanos >= pacedFrom).toList();
        assertThat(paced).as("rounds after the first second").hasSizeGreaterThan(10);
        double seconds = (paced.get(paced.size() - 1).startNanos - paced.get(0).startNanos) / 1e9;
        assertThat((paced.size() - 1) * BATCH / seconds).as("rows deleted a second")
            .isLessThan(2_500 * 1.1);
    }

    @Test
    void itTakesTheShareOfTheTimeThatDeletesAQuarterMoreThanComesInWithinAFifthAndAHalf() {
        assertThat(RetentionPurge.share(OptionalDouble.empty(), 10_000)).as("what comes in unknown").isEqualTo(0.5);
        assertThat(RetentionPurge.share(OptionalDouble.of(2_000), Double.NaN)).as("the speed unknown").isEqualTo(0.5);
        assertThat(RetentionPurge.share(OptionalDouble.of(2_000), 10_000))
            .as("2,500 rows a second of rounds that delete 10,000 a second").isEqualTo(0.25);
        assertThat(RetentionPurge.share(OptionalDouble.of(5_000), 10_000)).as("more than half the time would delete")
            .isEqualTo(0.5);
        assertThat(RetentionPurge.share(OptionalDouble.of(0), 10_000)).as("nothing coming in: a backlog still shrinks")
            .isEqualTo(0.2);
    }

    @Test
    void thePauseIsInProportionToTheRound() {
        long round = TimeUnit.MILLISECONDS.toNanos(100);
        assertThat(RetentionPurge.pauseNanos(round, 0.5)).isEqualTo(round);
        assertThat(RetentionPurge.pauseNanos(round, 0.25)).isEqualTo(3 * round);
        assertThat(RetentionPurge.pauseNanos(2 * round, 0.25)).as("a slower round, a longer pause")
            .isEqualTo(6 * round);
        assertThat(RetentionPurge.pauseNanos(4 * round, 0.2)).as("a second at most")
            .isEqualTo(Pacing.MAX_PAUSE_NANOS);
        assertThat(RetentionPurge.pauseNanos(Pacing.MAX_PAUSE_NANOS, 0.5)).isEqualTo(Pacing.MAX_PAUSE_NANOS);
    }

    /**
     * A run's pauses are between rounds: on a scheduler of one thread (or one lane for the rounds that wait on the
     * database or Redis), the claims and every other round get the thread while a large backlog is purged, instead of
     * after the whole run, up to an interval later.
     */
    @Test
    void aRunHoldsNoSchedulerThreadWhileItPauses() throws Exception {
        int batches = 50; // about 2 s of batches and pauses: the probe below comes long before the end
        SlowBacklog store = new SlowBacklog(batches * BATCH + 10, Duration.ofMillis(20));
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setPoolSize(1);
        scheduler.initialize();
        PeriodicJob job = purge(store, Duration.ofMinutes(1)).job(scheduler, TaskEvents.NONE);
        try {
            job.start();
            job.runWithin(0); // the first run now, not after the interval
            await().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(10))
                .until(() -> !store.batches.isEmpty());
            CompletableFuture<Integer> probe = new CompletableFuture<>();
            scheduler.execute(() -> probe.complete(store.batches.size()));
            int doneByThen = probe.get(10, TimeUnit.SECONDS);
            assertThat(doneByThen)
                .as("batches done when another round got the scheduler's one thread, of %d", batches + 1)
                .isLessThan(batches + 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.deleted == batches * BATCH + 10);
        }
        finally {
            job.stop();
            scheduler.shutdown();
        }
    }

    /** Runs rounds until the run ends, pausing between them as the job would; the pauses asked for. */
    private static List<Duration> runOnce(RetentionPurge purge) {
        List<Duration> pauses = new ArrayList<>();
        purge.run();
        while (purge.running()) {
            Duration pause = purge.nextDelay();
            pauses.add(pause);
            LockSupport.parkNanos(pause.toNanos());
            purge.run();
        }
        return pauses;
    }

    private RetentionPurge purge(SlowBacklog store, Duration interval) {
        return new RetentionPurge(store, new EngineSettings.Retention(
                Map.of(TaskStatus.SUCCEEDED, Duration.ofMinutes(1)), interval, BATCH), clock, store.arrivals);
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

        /** Tasks coming in a second, from the test's start, claimed as they come; none claimed when NaN. */
        volatile double arrivalsPerSecond = Double.NaN;

        final Arrivals arrivals = new Arrivals();

        volatile int calls;

        volatile long deleted;

        private final long createdNanos = System.nanoTime();

        private long left;

        private final Duration batchTime;

        SlowBacklog(long backlog, Duration batchTime) {
            this.left = backlog;
            this.batchTime = batchTime;
        }

        @Override
        public long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
            calls++;
            double rate = arrivalsPerSecond;
            if (!Double.isNaN(rate)) { // as the dispatcher would have claimed them meanwhile
                arrivals.saw(1 + (long) ((System.nanoTime() - createdNanos) * rate / 1e9));
            }
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
