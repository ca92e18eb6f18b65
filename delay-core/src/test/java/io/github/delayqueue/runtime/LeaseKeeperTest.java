package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Lease renewal waits on the database alone. */
class LeaseKeeperTest {

    private final QueueClock clock = new QueueClock(Clock.systemUTC());

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final HangingTimeIndex index = new HangingTimeIndex();

    private final ClaimTerms terms = new ClaimTerms("test", Duration.ofSeconds(30));

    @AfterEach
    void release() {
        index.answer.countDown();
    }

    /**
     * A task given up while the database was away is handed back at the next renewal, and indexed again: with Redis
     * hanging (Lettuce waits up to its timeout, 60 s by default) that add must not hold the renewal, or the next one
     * would come after the leases end and every healthy handler would be interrupted.
     */
    @Test
    void aHangingIndexNeverHoldsUpTheRenewal() throws Exception {
        long now = clock.now();
        store.insert(List.of(new NewTask("t", null, "null", now, TaskStatus.QUEUED, null),
                new NewTask("t", null, "null", now, TaskStatus.QUEUED, null)), now);
        List<ClaimedTask> claimed = store.claimDue(TaskStatus.QUEUED, now, 2, terms.at(now));
        HeldTasks held = new HeldTasks(clock, Duration.ofSeconds(30));
        held.add(claimed.get(0), now + 30_000).start(); // running: renewed
        held.giveUp(held.add(claimed.get(1), now + 30_000)); // given up unstarted: handed back
        LeaseKeeper keeper = new LeaseKeeper(store, held, terms, clock, Tiers.hybrid(Duration.ofHours(1)),
                new IndexWrites(new Indexer(index, TaskEvents.NONE), TestScheduler.SHARED));

        CompletableFuture<Void> run = CompletableFuture.runAsync(keeper);
        run.get(5, TimeUnit.SECONDS); // the index hangs all along

        assertThat(store.find(claimed.get(1).id()).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
        index.answer.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> index.size(0) == 1);
    }
}
