package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DatabaseTaskSource}, jdbc mode's way to find work, on an in-memory store with times passed in: back-to-back
 * claims while work comes, claim-ahead, the idle sleep until the next due time or the poll, leftovers of a hybrid
 * run, a due row locked elsewhere, and instances claiming at once.
 */
class DatabaseTaskSourceTest {

    private static final long T0 = 1_750_000_000_000L;

    private static final long POLL = 200;

    private static final long CLAIM_AHEAD = 25;

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final DatabaseTaskSource source = source(store, "me");

    private static DatabaseTaskSource source(InMemoryTaskStore store, String owner) {
        return new DatabaseTaskSource(store, new ClaimTerms(owner, Duration.ofSeconds(30)), POLL, CLAIM_AHEAD,
                () -> Set.of("t"));
    }

    @Test
    void whileWorkKeepsComingItClaimsBackToBackEarliestFirst() {
        long second = insert(T0 - 5, TaskStatus.SCHEDULED);
        long first = insert(T0 - 10, TaskStatus.SCHEDULED);
        long third = insert(T0, TaskStatus.SCHEDULED);

        FetchResult one = source.fetch(T0, 2);
        FetchResult two = source.fetch(T0, 2);
        FetchResult none = source.fetch(T0, 2);

        assertThat(one.tasks()).extracting(ClaimedTask::id).containsExactly(first, second);
        assertThat(two.tasks()).extracting(ClaimedTask::id).containsExactly(third);
        assertThat(List.of(one.nextAt(), two.nextAt(), none.nextAt())).containsOnly(T0);
        assertThat(none.tasks()).isEmpty();
        assertThat(store.claimedBy("me", T0 + 29_999)).as("claimed for a lease from now").hasSize(3);
    }

    @Test
    void tasksDueWithinTheClaimAheadAreClaimedEarly() {
        long soon = insert(T0 + CLAIM_AHEAD, TaskStatus.SCHEDULED);
        insert(T0 + CLAIM_AHEAD + 1, TaskStatus.SCHEDULED);

        assertThat(source.fetch(T0, 10).tasks()).extracting(ClaimedTask::id).containsExactly(soon);
    }

    @Test
    void idleItSleepsUntilTheNextDueTimeLessTheClaimAheadOrThePollWhicheverIsFirst() {
        goIdle();
        assertThat(source.fetch(T0, 10)).isEqualTo(new FetchResult(List.of(), T0 + POLL));

        insert(T0 + 10_000, TaskStatus.SCHEDULED);
        assertThat(source.fetch(T0, 10)).isEqualTo(new FetchResult(List.of(), T0 + POLL));

        insert(T0 + 100, TaskStatus.SCHEDULED);
        assertThat(source.fetch(T0, 10)).isEqualTo(new FetchResult(List.of(), T0 + 100 - CLAIM_AHEAD));

        assertThat(source.fetch(T0 + 75, 10).tasks()).hasSize(1);
    }

    /**
     * A task of a type this instance does not run stays pending for one that does, and an overdue one of them does
     * not keep the idle source looking (it sleeps the poll interval, as with nothing due).
     */
    @Test
    void itClaimsOnlyTheTypesItCanStartAndIsNotKeptAwakeByOthers() {
        long unserved = store.insert(List.of(new NewTask("other", null, "{}", T0 - 100, TaskStatus.SCHEDULED, null)),
                T0).get(0).id();
        long served = insert(T0 - 10, TaskStatus.SCHEDULED);

        assertThat(source.fetch(T0, 10).tasks()).extracting(ClaimedTask::id).containsExactly(served);
        assertThat(source.fetch(T0, 10).tasks()).isEmpty();
        assertThat(source.fetch(T0, 10)).as("idle: the unserved task does not wake it")
            .isEqualTo(new FetchResult(List.of(), T0 + POLL));
        assertThat(store.find(unserved).orElseThrow().status()).isEqualTo(TaskStatus.SCHEDULED);
        DatabaseTaskSource none = new DatabaseTaskSource(store, new ClaimTerms("me", Duration.ofSeconds(30)), POLL,
                CLAIM_AHEAD, Set::of);
        assertThat(none.fetch(T0, 10)).as("no type to claim").isEqualTo(new FetchResult(List.of(), T0 + POLL));
    }

    /** Rows an earlier hybrid run left QUEUED are no one else's in jdbc mode: an idle source takes them at times. */
    @Test
    void idleItTakesTheRowsLeftQueuedEveryFiveSeconds() {
        goIdle();
        assertThat(source.fetch(T0, 10).tasks()).as("the first idle look finds no leftovers").isEmpty();
        long leftover = insert(T0 - 60_000, TaskStatus.QUEUED);
        assertThat(source.fetch(T0 + 4_999, 10).tasks()).as("not looked for again yet").isEmpty();

        FetchResult later = source.fetch(T0 + 5_000, 10);

        assertThat(later.tasks()).extracting(ClaimedTask::id).containsExactly(leftover);
        assertThat(later.nextAt()).isEqualTo(T0 + 5_000);
    }

    /** What {@code SKIP LOCKED} does to a row another transaction holds: due, yet not claimed. */
    @Test
    void aDueRowLockedElsewhereIsLookedAtAgainSoonerThanThePollButNotAtOnce() {
        LockingStore locking = new LockingStore();
        DatabaseTaskSource source = source(locking, "me");
        locking.insert(List.of(new NewTask("t", null, "{}", T0 - 1, TaskStatus.SCHEDULED, null)), T0);
        locking.locked = true;
        source.fetch(T0, 10); // busy at first: claims, finds nothing, goes idle

        assertThat(source.fetch(T0, 10)).as("due, so it claims: skipped").isEqualTo(new FetchResult(List.of(), T0));
        assertThat(source.fetch(T0, 10)).as("then waits a little").isEqualTo(new FetchResult(List.of(), T0 + 100));
        locking.locked = false;
        assertThat(source.fetch(T0 + 100, 10).tasks()).hasSize(1);
    }

    @Test
    void instancesClaimingAtOnceTakeEveryTaskOnce() throws Exception {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            tasks.add(new NewTask("t", null, "{}", T0 - i % 50, TaskStatus.SCHEDULED, null));
        }
        Set<Long> ids = new HashSet<>(store.insert(tasks, T0).stream().map(InsertedTask::id).toList());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<List<Long>>> instances = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                DatabaseTaskSource instance = source(store, "instance-" + i);
                instances.add(() -> {
                    List<Long> mine = new ArrayList<>();
                    for (int idleLooks = 0; idleLooks < 3;) {
                        List<ClaimedTask> claimed = instance.fetch(T0, 16).tasks();
                        claimed.forEach(task -> mine.add(task.id()));
                        idleLooks = claimed.isEmpty() ? idleLooks + 1 : 0;
                    }
                    return mine;
                });
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> instance : pool.invokeAll(instances, 30, TimeUnit.SECONDS)) {
                all.addAll(instance.get());
            }
            assertThat(all).doesNotHaveDuplicates();
            assertThat(new HashSet<>(all)).isEqualTo(ids);
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** A source starts busy: its first look claims even with nothing due, and only then is it idle. */
    private void goIdle() {
        assertThat(source.fetch(T0, 10)).isEqualTo(new FetchResult(List.of(), T0));
    }

    private long insert(long dueAt, TaskStatus status) {
        return store.insert(List.of(new NewTask("t", null, "{}", dueAt, status, null)), T0).get(0).id();
    }

    /** A store whose due rows are locked by another transaction while {@code locked}: a claim skips them. */
    private static final class LockingStore extends InMemoryTaskStore {

        volatile boolean locked;

        @Override
        public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Set<String> types,
                ClaimLimits limits, Lease lease) {
            return locked ? List.of() : super.claimDue(status, dueBy, limit, types, limits, lease);
        }
    }
}
