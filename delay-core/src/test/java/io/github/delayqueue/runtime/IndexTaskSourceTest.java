package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link IndexTaskSource}, hybrid mode's way to find work, on an in-memory store and index with times passed in: due
 * ids popped and claimed, the sleep until the next head, ids others took, rows locked elsewhere, rows the index lost,
 * an unreachable index, and a claim that fails after the pop.
 */
class IndexTaskSourceTest {

    private static final long T0 = 1_750_000_000_000L;

    private static final long CLAIM_AHEAD = 26;

    /** How far apart a steady stream's looks are, and how much further than the claim-ahead a look claims. */
    private static final long PACE = CLAIM_AHEAD / 2;

    private static final long MAX_WAIT = 1_000;

    private static final long SWEEP_GRACE = 5_000;

    private static final long SWEEP_INTERVAL = 1_000;

    private static final long POLL = 200;

    private final InMemoryTimeIndex index = new InMemoryTimeIndex(1);

    private final AtomicInteger conflicts = new AtomicInteger();

    private final AtomicInteger swept = new AtomicInteger();

    private final TaskEvents events = new TaskEvents() {
        @Override
        public void claimConflicts(int count) {
            conflicts.addAndGet(count);
        }

        @Override
        public void recovered(RecoveryReason reason, int count) {
            if (reason == RecoveryReason.SWEEP) {
                swept.addAndGet(count);
            }
        }
    };

    private final Indexer indexer = new Indexer(index, events);

    /** What the queue clock reads after a pop: at or before the time passed in, unless a test makes a pop late. */
    private long clockAfterPop = T0;

    private IndexTaskSource source(InMemoryTaskStore store) {
        return new IndexTaskSource(indexer, store, new ClaimTerms("me", Duration.ofSeconds(30)), events, settings(),
                () -> clockAfterPop, Handlers.claiming("t"));
    }

    static EngineSettings settings() {
        return new EngineSettings("me",
                new EngineSettings.Worker(4, 0, 100, Duration.ofMillis(CLAIM_AHEAD), Duration.ofSeconds(30),
                        Duration.ofSeconds(20), Duration.ofSeconds(5), null),
                new EngineSettings.Jdbc(Duration.ofMillis(POLL)), new EngineSettings.Redis(Duration.ofMillis(MAX_WAIT)),
                new EngineSettings.Hybrid(Duration.ofMillis(SWEEP_GRACE), Duration.ofMillis(SWEEP_INTERVAL),
                        Duration.ofSeconds(30), 1_000),
                new EngineSettings.Retention(Map.of(), Duration.ofMinutes(1), 1_000));
    }

    @Test
    void itClaimsWhatTheIndexHasDueWithinOneAndAHalfClaimAheadsAndSleepsUntilTheNextHeadIsThatClose() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        long due = queued(store, T0 - 10);
        long soon = queued(store, T0 + CLAIM_AHEAD + PACE);
        queued(store, T0 + CLAIM_AHEAD + PACE + 1);
        queued(store, T0 + 500);
        FetchResult first = source(store).fetch(T0, 10);

        assertThat(first.tasks()).extracting(ClaimedTask::id).containsExactlyInAnyOrder(due, soon);
        assertThat(store.claimedBy("me", T0)).hasSize(2);
        assertThat(first.nextAt()).as("half a claim-ahead on: the next head is closer").isEqualTo(T0 + PACE);

        FetchResult second = source(store).fetch(T0 + PACE, 10);
        assertThat(second.tasks()).hasSize(1);
        assertThat(second.nextAt()).as("the next head, less one and a half claim-aheads")
            .isEqualTo(T0 + 500 - CLAIM_AHEAD - PACE);
    }

    /**
     * A steady stream keeps a task coming within reach every few hundred microseconds: a look that took all that was
     * due looks again no sooner than half a claim-ahead later, not at that next task's time, so a claim takes what
     * falls due in half a claim-ahead instead of a few tasks, and each task is still claimed a claim-ahead before it
     * is due.
     */
    @Test
    void aLookThatTookAllThatWasDueLooksAgainNoSoonerThanHalfAClaimAheadLater() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        long due = queued(store, T0 - 10);
        queued(store, T0 + CLAIM_AHEAD + PACE + 1);

        FetchResult result = source(store).fetch(T0, 10);

        assertThat(result.tasks()).extracting(ClaimedTask::id).containsExactly(due);
        assertThat(result.nextAt()).as("half a claim-ahead on; the next head alone would say T0 + 1")
            .isEqualTo(T0 + PACE);
    }

    /** A look that filled its limit may have left due ids in the index: it does not wait half a claim-ahead. */
    @Test
    void aLookThatFilledItsLimitDoesNotWaitForTheNextOne() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        queued(store, T0 - 30);
        queued(store, T0 - 20);
        queued(store, T0 - 10);

        FetchResult result = source(store).fetch(T0, 2);

        assertThat(result.tasks()).hasSize(2);
        assertThat(result.nextAt()).as("the id left behind is due").isLessThanOrEqualTo(T0);
    }

    @Test
    void withNothingInTheIndexItSleepsUntilTheNextSweepAtMost() {
        FetchResult result = source(new InMemoryTaskStore()).fetch(T0, 10);

        assertThat(result.tasks()).isEmpty();
        assertThat(result.nextAt()).isEqualTo(T0 + Math.min(MAX_WAIT, SWEEP_INTERVAL));
    }

    @Test
    void anIdAnotherInstanceClaimedIsDroppedAndCountedAsAConflict() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        long id = queued(store, T0 - 10);
        store.claimIds(List.of(id), T0, new ClaimTerms("other", Duration.ofSeconds(30)).at(T0));

        FetchResult result = source(store).fetch(T0, 10);

        assertThat(result.tasks()).isEmpty();
        assertThat(conflicts).hasValue(1);
        assertThat(index.size(0)).as("not put back: it is the other instance's").isZero();
    }

    @Test
    void aDueRowLockedElsewhereGoesBackToTheIndexAPauseLater() {
        LockingStore store = new LockingStore();
        long id = queued(store, T0 - 10);
        store.locked = true;

        assertThat(source(store).fetch(T0, 10).tasks()).isEmpty();

        assertThat(conflicts).as("still pending, so no conflict").hasValue(0);
        assertThat(index.pop(0, T0 + TaskSource.LOCKED_RETRY_MILLIS - 1, 10).ids()).isEmpty();
        assertThat(index.pop(0, T0 + TaskSource.LOCKED_RETRY_MILLIS, 10).ids()).containsExactly(id);
    }

    /**
     * A popped id of a type this instance cannot start is not claimed and not put back (every instance that cannot
     * run it would pop it in a loop): its row stays pending, and the sweep of one that can claims it after the grace.
     */
    @Test
    void aPoppedIdOfATypeItDoesNotRunStaysPendingOutOfTheIndexForTheSweepOfOneThatDoes() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        long other = store.insert(List.of(new NewTask("other", null, "{}", T0 - 10, TaskStatus.QUEUED, null)), T0)
            .get(0).id();
        index.add(List.of(new IndexEntry(other, T0 - 10)));
        long mine = queued(store, T0 - 5);

        FetchResult result = source(store).fetch(T0, 10);

        assertThat(result.tasks()).extracting(ClaimedTask::id).containsExactly(mine);
        assertThat(store.find(other).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(index.size(0)).as("not put back").isZero();
        assertThat(conflicts).as("not taken by another instance").hasValue(0);
        IndexTaskSource servesIt = new IndexTaskSource(indexer, store, new ClaimTerms("it", Duration.ofSeconds(30)),
                events, settings(), () -> clockAfterPop, Handlers.claiming("other"));
        assertThat(servesIt.fetch(T0 - 10 + SWEEP_GRACE, 10).tasks()).as("swept once overdue by the grace")
            .extracting(ClaimedTask::id).containsExactly(other);
    }

    @Test
    void aRowTheIndexLostIsSweptOnceItIsOverdueByTheGrace() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        long lostLongAgo = lostFromTheIndex(store, T0 - SWEEP_GRACE - 1);
        long lostRecently = lostFromTheIndex(store, T0 - SWEEP_GRACE + SWEEP_INTERVAL);
        IndexTaskSource source = source(store);

        assertThat(source.fetch(T0, 10).tasks()).extracting(ClaimedTask::id).containsExactly(lostLongAgo);
        assertThat(source.fetch(T0 + SWEEP_INTERVAL - 1, 10).tasks()).as("not swept again yet").isEmpty();
        assertThat(source.fetch(T0 + SWEEP_INTERVAL, 10).tasks()).extracting(ClaimedTask::id)
            .containsExactly(lostRecently);
        assertThat(swept).hasValue(2);
    }

    @Test
    void whileTheIndexIsUnreachableItClaimsDueRowsFromTheDatabaseAndLooksAgainAfterThePoll() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        index.reachable(false);
        long due = lostFromTheIndex(store, T0 - 10);
        lostFromTheIndex(store, T0 + 1_000);
        IndexTaskSource source = source(store);

        assertThat(source.fetch(T0, 10).tasks()).as("the pop fails: the index is marked down").isEmpty();
        assertThat(indexer.available()).isFalse();
        FetchResult fromTheDatabase = source.fetch(T0 + 1, 10);

        assertThat(fromTheDatabase.tasks()).extracting(ClaimedTask::id).containsExactly(due);
        assertThat(fromTheDatabase.nextAt()).as("while due rows keep coming: at once, as jdbc mode")
            .isEqualTo(T0 + 1);
        FetchResult none = source.fetch(T0 + 2, 10);
        assertThat(none.tasks()).isEmpty();
        assertThat(none.nextAt()).isEqualTo(T0 + 2 + POLL);
    }

    @Test
    void whenTheClaimFailsThePoppedIdsGoBackDueNow() {
        FailingStore store = new FailingStore();
        long id = queued(store, T0 + 10);

        assertThatThrownBy(() -> source(store).fetch(T0, 10)).hasMessageContaining("database gone");

        assertThat(index.pop(0, T0, 10).ids()).as("due now, not at its due time or after the grace")
            .containsExactly(id);
    }

    /** A row scheduled due soon: in the database as {@code QUEUED}, and in the index. */
    /**
     * Redis answered the pop 40 s late (it hung; Lettuce waited for its timeout): claimed with the lease stamped before
     * the pop, the tasks would be given up at once. Their ids go back, and the next look claims them with a fresh
     * lease.
     */
    @Test
    void idsOfAPopThatAnsweredLateAreClaimedAtTheNextLookWithAFreshLease() {
        List<Lease> leases = new ArrayList<>();
        InMemoryTaskStore store = new InMemoryTaskStore() {
            @Override
            public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits,
                Lease lease) {
                leases.add(lease);
                return super.claimIds(ids, dueBy, types, limits, lease);
            }
        };
        long id = queued(store, T0 - 10);
        IndexTaskSource source = source(store);
        clockAfterPop = T0 + 40_000;

        FetchResult late = source.fetch(T0, 10);

        assertThat(late.tasks()).isEmpty();
        assertThat(leases).as("no claim with a spent lease").isEmpty();
        assertThat(index.size(0)).isEqualTo(1);
        FetchResult next = source.fetch(T0 + 40_000, 10);
        assertThat(next.tasks()).extracting(ClaimedTask::id).containsExactly(id);
        // the row is overdue past the sweep's grace too: the sweep claims it by id and the pop's claim finds it taken
        assertThat(leases).as("every claim with a fresh lease").isNotEmpty().extracting(Lease::until)
            .containsOnly(T0 + 40_000 + 30_000);
    }

    private long queued(InMemoryTaskStore store, long dueAt) {
        long id = lostFromTheIndex(store, dueAt);
        index.add(List.of(new IndexEntry(id, dueAt)));
        return id;
    }

    /** A {@code QUEUED} row the index does not have: its add failed, or Redis lost it. */
    private static long lostFromTheIndex(InMemoryTaskStore store, long dueAt) {
        return store.insert(List.of(new NewTask("t", null, "{}", dueAt, TaskStatus.QUEUED, null)), T0).get(0).id();
    }

    /** A store whose rows are locked by another transaction while {@code locked}: a claim by id skips them. */
    private static final class LockingStore extends InMemoryTaskStore {

        volatile boolean locked;

        @Override
        public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits,
                Lease lease) {
            return locked ? List.of() : super.claimIds(ids, dueBy, types, limits, lease);
        }
    }

    /** A store whose claim by id fails, as a database that went away between the pop and the claim. */
    private static final class FailingStore extends InMemoryTaskStore {

        @Override
        public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits,
                Lease lease) {
            throw new IllegalStateException("database gone");
        }
    }
}
