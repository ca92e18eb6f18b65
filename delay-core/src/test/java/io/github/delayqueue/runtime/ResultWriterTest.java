package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import io.github.delayqueue.test.SettableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.TransientDataAccessResourceException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The result writer ({@link ResultWriter}) on an in-memory store and index: what it writes for starts, ends and
 * hand-backs, in how many writes, what it tells the index and the consumer, how it retries a store that fails, how
 * it stops, and many workers reporting at once.
 */
class ResultWriterTest {

    private static final long T0 = 1_750_000_000_000L;

    private final SettableClock applicationClock = SettableClock.atMillis(T0);

    private final QueueClock clock = new QueueClock(applicationClock);

    private final CountingStore store = new CountingStore();

    private final InMemoryTimeIndex index = new InMemoryTimeIndex(1);

    private final WakeSignal wake = new WakeSignal(clock);

    private final ResultWriter writer = new ResultWriter(store, clock, new IndexWrites(new Indexer(index,
            TaskEvents.composite(List.of())), TestScheduler.SHARED), wake, Tiers.hybrid(Duration.ofHours(1)),
            TaskEvents.NONE);

    @AfterEach
    void stop() throws InterruptedException {
        writer.stop(1_000);
    }

    /** Reported before the writer starts, they fall in its first batch. */
    @Test
    void aStartAndAnEndInOneBatchAreOneWriteThatCountsTheAttemptOnce() {
        List<ClaimedTask> claimed = claim(3, T0);
        for (ClaimedTask task : claimed) {
            writer.started(task.claimId());
            writer.submit(new Completion.Succeeded(task.id(), task.claim()));
        }

        writer.start(TestScheduler.SHARED);

        await().atMost(Duration.ofSeconds(5)).until(() -> store.finishes.get() == 1);
        assertThat(claimed).allSatisfy(task -> {
            assertThat(view(task).status()).isEqualTo(TaskStatus.SUCCEEDED);
            assertThat(view(task).attempts()).isEqualTo(1);
        });
        assertThat(store.starts.get()).as("each start went with its end").isZero();
    }

    @Test
    void aStartIsWrittenBeforeItsEndSoTheAttemptCountsWhileItRuns() {
        ClaimedTask task = claim(1, T0).get(0);
        writer.start(TestScheduler.SHARED);

        writer.started(task.claimId());

        await().atMost(Duration.ofSeconds(5)).until(() -> view(task).attempts() == 1);
        assertThat(view(task).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(store.claimedBy("me", T0)).as("started: no longer adoptable as unstarted").isEmpty();
        writer.submit(new Completion.Succeeded(task.id(), task.claim()));
        await().atMost(Duration.ofSeconds(5)).until(() -> view(task).status() == TaskStatus.SUCCEEDED);
        assertThat(view(task).attempts()).isEqualTo(1);
    }

    @Test
    void handedBackClaimsArePendingAgainInTheirTierUncountedAndTheNearOnesIndexed() {
        ClaimedTask near = claimOne(T0 + 10_000);
        ClaimedTask far = claimOne(T0 + 2 * 3_600_000);
        writer.start(TestScheduler.SHARED);

        writer.handBack(List.of(near, far));

        await().atMost(Duration.ofSeconds(5)).until(() -> view(far).status() == TaskStatus.SCHEDULED);
        assertThat(view(near).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(near).attempts()).isZero();
        assertThat(index.pop(0, Long.MAX_VALUE, 10).ids()).containsExactly(near.id());
        assertThat(store.claimedBy("me", T0)).isEmpty();
    }

    @Test
    void aRetryIntoTheNearTierIsIndexedAndWakesTheConsumerAtItsDueTime() {
        ClaimedTask task = claim(1, T0).get(0);
        List<List<ClaimId>> written = new CopyOnWriteArrayList<>();
        writer.onWritten(written::add);
        writer.start(TestScheduler.SHARED);

        writer.submit(new Completion.Retry(task.id(), task.claim(), TaskStatus.QUEUED, T0 + 5, 1, "boom"));

        await().atMost(Duration.ofSeconds(5)).until(() -> index.size(0) == 1);
        assertThat(written).containsExactly(List.of(task.claimId()));
        assertThat(view(task).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(task).lastError()).isEqualTo("boom");
        assertThat(index.pop(0, T0 + 5, 10).ids()).containsExactly(task.id());
        assertThat(wake.next()).as("the consumer is woken for the retry's due time").isEqualTo(T0 + 5);
    }

    @Test
    void aFailedWriteIsTriedAgainUntilTheStoreTakesIt() {
        ClaimedTask task = claim(1, T0).get(0);
        store.failingFinishes.set(2);
        writer.start(TestScheduler.SHARED);

        writer.submit(new Completion.Succeeded(task.id(), task.claim()));

        await().atMost(Duration.ofSeconds(5)).until(() -> view(task).status() == TaskStatus.SUCCEEDED);
        assertThat(store.finishes.get()).isEqualTo(3);
    }

    /** The writer of a claim that was lost meanwhile cannot tell; the store's fence makes the write change nothing. */
    @Test
    void theResultOfAClaimTakenOverMeanwhileChangesNothing() {
        ClaimedTask lost = claim(1, T0).get(0);
        store.recoverExpiredLeases(T0 + 60_000, 10, expired -> new Completion.Retry(expired.id(), expired.claim(),
                TaskStatus.QUEUED, T0 + 60_000, 0, "lease expired"));
        ClaimedTask current = store.claimIds(List.of(lost.id()), T0 + 60_000, new Lease("other", T0 + 90_000,
                T0 + 60_000)).get(0);
        writer.start(TestScheduler.SHARED);

        writer.started(lost.claimId());
        writer.submit(new Completion.Failed(lost.id(), lost.claim(), 1, "stale"));

        await().atMost(Duration.ofSeconds(5)).until(() -> store.finishes.get() == 1);
        assertThat(view(lost).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(store.claimedBy("other", T0 + 60_000)).containsExactly(current);
    }

    @Test
    void stoppingWritesWhatIsQueuedFirst() throws InterruptedException {
        List<ClaimedTask> claimed = claim(50, T0);
        writer.start(TestScheduler.SHARED);
        claimed.forEach(task -> writer.submit(new Completion.Succeeded(task.id(), task.claim())));

        writer.stop(2_000);

        assertThat(claimed).allSatisfy(task -> assertThat(view(task).status()).isEqualTo(TaskStatus.SUCCEEDED));
    }

    /** Past the shutdown timeout it gives up: the tasks stay RUNNING until their lease ends, and run again. */
    @Test
    void stoppingGivesUpOnAStoreThatKeepsFailingOnceTheTimeoutIsOver() {
        ClaimedTask task = claim(1, T0).get(0);
        store.failingFinishes.set(Integer.MAX_VALUE);
        writer.start(TestScheduler.SHARED);
        writer.submit(new Completion.Succeeded(task.id(), task.claim()));

        assertTimeoutPreemptively(Duration.ofSeconds(4), () -> writer.stop(300));

        assertThat(store.finishes.get()).isGreaterThan(1);
        assertThat(view(task).status()).isEqualTo(TaskStatus.RUNNING);
    }

    /** Workers report from many threads; every result is written, in far fewer writes than results. */
    @Test
    void theResultsOfManyWorkersAtOnceAreAllWrittenInBatches() throws Exception {
        List<ClaimedTask> claimed = claim(2_000, T0);
        writer.start(TestScheduler.SHARED);
        ExecutorService workers = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        try {
            for (int worker = 0; worker < 8; worker++) {
                List<ClaimedTask> mine = claimed.subList(worker * 250, (worker + 1) * 250);
                workers.submit(() -> {
                    go.await();
                    for (ClaimedTask task : mine) {
                        writer.started(task.claimId());
                        writer.submit(new Completion.Succeeded(task.id(), task.claim()));
                    }
                    return null;
                });
            }
            go.countDown();

            await().atMost(Duration.ofSeconds(10)).until(() -> store.all().stream()
                .allMatch(task -> task.status() == TaskStatus.SUCCEEDED));
        }
        finally {
            workers.shutdownNow();
            workers.awaitTermination(5, TimeUnit.SECONDS);
        }
        assertThat(store.all()).allSatisfy(task -> assertThat(task.attempts()).isEqualTo(1));
        assertThat(store.finishes.get()).isLessThan(200);
    }

    private List<ClaimedTask> claim(int count, long dueAt) {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(new NewTask("t", null, "{}", dueAt, TaskStatus.QUEUED, null));
        }
        List<Long> ids = store.insert(tasks, T0).stream().map(InsertedTask::id).toList();
        return store.claimIds(ids, dueAt, new Lease("me", T0 + 30_000, T0));
    }

    private ClaimedTask claimOne(long dueAt) {
        return claim(1, dueAt).get(0);
    }

    private TaskView view(ClaimedTask task) {
        return store.find(task.id()).orElseThrow();
    }

    /** Counts the writes that reach the table, and fails the next {@code failingFinishes} of them. */
    private static final class CountingStore extends InMemoryTaskStore {

        final AtomicInteger starts = new AtomicInteger();

        final AtomicInteger finishes = new AtomicInteger();

        final AtomicInteger failingFinishes = new AtomicInteger();

        @Override
        public int markStarted(Collection<ClaimId> started, long now) {
            starts.incrementAndGet();
            return super.markStarted(started, now);
        }

        @Override
        public void finish(List<Completion> completions, long now) {
            finishes.incrementAndGet();
            if (failingFinishes.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new TransientDataAccessResourceException("the database is away");
            }
            super.finish(completions, now);
        }
    }
}
