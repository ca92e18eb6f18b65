package io.github.delayqueue.test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.TaskRequest.KeyMode;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.api.TaskView.FailedAttempt;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.ExpiredLease;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskStore;
import io.github.delayqueue.store.TypeLimit;
import io.github.delayqueue.store.TaskTable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * What every {@link TaskStore} must do, whatever holds the rows: the rules the engine builds "at least once", "a claim
 * is one process's" and "an attempt counts only if its handler started" on (README, Guarantees). A subclass gives a
 * store on an empty table before each test; {@code JdbcTaskStoreContractIT} runs these on MariaDB or MySQL,
 * {@code InMemoryTaskStoreTest} on {@link InMemoryTaskStore}, so the fake the engine's unit tests use is held to the
 * same rules as the real store. Times are passed in, as the interface asks, from a fixed {@link #T0}.
 */
public abstract class TaskStoreContract {

    /** The time every test starts at, epoch milliseconds. */
    protected static final long T0 = 1_750_000_000_000L;

    protected TaskStore store;

    /** A store on an empty table. */
    protected abstract TaskStore createStore();

    /**
     * Another instance's store on the same table (an engine holds one per process). The same object will do for a
     * store whose calls do not wait for each other.
     */
    protected TaskStore anotherInstance() {
        return store;
    }

    /** Holds the purge lock, as another instance's purge does, until closed. */
    protected abstract AutoCloseable purgeElsewhere() throws Exception;

    /** What the store's clock (the database's) reads now, epoch milliseconds, as the test knows it. */
    protected abstract long expectedStoreTime();

    /**
     * Transactions that the store's writes join, as a transactional handler's do: for a database store, a
     * transaction manager of its DataSource. The default has no resource and only runs the transaction's
     * synchronizations, which is all a store that keeps its rows in memory can join.
     */
    protected PlatformTransactionManager callerTransactions() {
        return new SynchronizationsOnly();
    }

    @BeforeEach
    void emptyTable() {
        store = createStore();
    }

    // --- insert -----------------------------------------------------------------------------------------------

    @Test
    void insertStoresEveryFieldAndAnswersInInputOrder() {
        List<InsertedTask> inserted = store.insert(List.of(task("a", null, T0 + 10, TaskStatus.SCHEDULED, null),
                task("b", "k", T0 + 20, TaskStatus.QUEUED, 5), task("c", null, T0 - 5, TaskStatus.QUEUED, null)),
                T0);

        assertThat(inserted).extracting(InsertedTask::created).containsExactly(true, true, true);
        assertThat(inserted).extracting(InsertedTask::status)
            .containsExactly(TaskStatus.SCHEDULED, TaskStatus.QUEUED, TaskStatus.QUEUED);
        assertThat(inserted).extracting(InsertedTask::dueAt).containsExactly(T0 + 10, T0 + 20, T0 - 5);
        assertThat(inserted).extracting(InsertedTask::id).doesNotHaveDuplicates();
        TaskView b = view(inserted.get(1).id());
        assertThat(b).isEqualTo(new TaskView(inserted.get(1).id(), "b", "k", TaskStatus.QUEUED,
                Instant.ofEpochMilli(T0 + 20), 0, 5, null, Instant.ofEpochMilli(T0), Instant.ofEpochMilli(T0)));
        assertThat(store.find("b", "k")).contains(b);
        assertThat(view(inserted.get(0).id()).key()).isNull();
    }

    @Test
    void aKeyedInsertOfATakenKeyReturnsTheTaskThatIsThereAndChangesNothing() {
        long id = insert(task("t", "k", T0 + 1_000, TaskStatus.SCHEDULED, null));

        InsertedTask again = store.insert(List.of(task("t", "k", T0 + 5, TaskStatus.QUEUED, 3)), T0 + 100).get(0);

        assertThat(again).isEqualTo(new InsertedTask(id, false, TaskStatus.SCHEDULED, T0 + 1_000));
        TaskView stored = view(id);
        assertThat(stored.dueAt()).isEqualTo(Instant.ofEpochMilli(T0 + 1_000));
        assertThat(stored.maxAttempts()).isNull();
        assertThat(stored.updatedAt()).isEqualTo(Instant.ofEpochMilli(T0));
    }

    @Test
    void theSameKeyTwiceInOneCallIsOneTaskCreatedOnce() {
        List<InsertedTask> inserted = store.insert(List.of(task("t", "k", T0 + 1, TaskStatus.SCHEDULED, null),
                task("t", "other", T0 + 2, TaskStatus.SCHEDULED, null),
                task("t", "k", T0 + 3, TaskStatus.QUEUED, null)), T0);

        assertThat(inserted.get(2).id()).isEqualTo(inserted.get(0).id());
        assertThat(inserted).extracting(InsertedTask::created).containsExactly(true, true, false);
        assertThat(inserted.get(2).dueAt()).as("the stored task's").isEqualTo(T0 + 1);
    }

    @Test
    void keysAreUniquePerTypeOnly() {
        List<InsertedTask> inserted = store.insert(List.of(task("t1", "k", T0, TaskStatus.SCHEDULED, null),
                task("t2", "k", T0, TaskStatus.SCHEDULED, null)), T0);

        assertThat(inserted).extracting(InsertedTask::created).containsExactly(true, true);
        assertThat(inserted.get(0).id()).isNotEqualTo(inserted.get(1).id());
    }

    /**
     * A key names one live task at a time: while its task is pending or running, scheduling the key again returns
     * that task; once it has finished (succeeded, failed or been cancelled) the key is free at once, without waiting
     * for the purge, and the new request creates a new task. Finding the key gives its live task, else its latest.
     */
    @Test
    void aFinishedTaskNeverBlocksItsKeyAndARunningOneHoldsIt() {
        for (TaskStatus end : List.of(TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.CANCELLED)) {
            String key = "k-" + end;
            long first = insert(task("t", key, T0, TaskStatus.QUEUED, null));
            if (end == TaskStatus.CANCELLED) {
                assertThat(store.cancel(first, T0 + 5)).isPresent();
            }
            else {
                ClaimedTask claimed = store.claimIds(List.of(first), T0, lease("a", T0 + 30_000)).get(0);
                assertThat(store.insert(List.of(task("t", key, T0 + 50, TaskStatus.SCHEDULED, null)), T0 + 5))
                    .as("while running").containsExactly(new InsertedTask(first, false, TaskStatus.RUNNING, T0));
                store.finish(List.of(end == TaskStatus.SUCCEEDED ? new Completion.Succeeded(first, claimed.claim())
                        : new Completion.Failed(first, claimed.claim(), 1, "failed")), T0 + 10);
            }
            assertThat(view(first).status()).isEqualTo(end);

            InsertedTask second = store.insert(List.of(task("t", key, T0 + 50, TaskStatus.SCHEDULED, null)), T0 + 20)
                .get(0);
            assertThat(second.created()).as("after %s", end).isTrue();
            assertThat(second.id()).isNotEqualTo(first);
            assertThat(store.find("t", key)).map(TaskView::id).as("the live one").contains(second.id());
            assertThat(store.insert(List.of(task("t", key, T0 + 90, TaskStatus.SCHEDULED, null)), T0 + 30))
                .as("the new task holds the key").containsExactly(new InsertedTask(second.id(), false,
                        TaskStatus.SCHEDULED, T0 + 50));
            assertThat(store.cancel("t", key, T0 + 40)).hasValue(second.id());
            assertThat(store.find("t", key)).map(TaskView::id).as("none live: the latest").contains(second.id());
            assertThat(view(first).status()).as("the finished task is left as it was").isEqualTo(end);
        }
    }

    /**
     * A handler that completes in its transaction: the success made in the caller's transaction is written by its
     * commit, not at all by its rollback, and counts the attempt; a claim no longer held is not completed.
     */
    @Test
    void aSuccessInTheCallersTransactionIsWrittenByItsCommitAndNotByItsRollback() {
        ClaimedTask committed = store.claimIds(List.of(insert(task("t", null, T0, TaskStatus.QUEUED, null))), T0,
                lease("a", T0 + 30_000)).get(0);
        ClaimedTask rolledBack = store.claimIds(List.of(insert(task("t", null, T0, TaskStatus.QUEUED, null))), T0,
                lease("a", T0 + 30_000)).get(0);
        TransactionTemplate tx = new TransactionTemplate(callerTransactions());

        Boolean held = tx.execute(status -> store.succeedInCallerTransaction(committed.claimId(), T0 + 10));
        assertThat(held).isTrue();
        assertThat(view(committed.id())).extracting(TaskView::status, TaskView::attempts)
            .containsExactly(TaskStatus.SUCCEEDED, 1);
        held = tx.execute(status -> {
            status.setRollbackOnly();
            return store.succeedInCallerTransaction(rolledBack.claimId(), T0 + 10);
        });
        assertThat(held).isTrue();
        assertThat(view(rolledBack.id()).status()).isEqualTo(TaskStatus.RUNNING);

        store.release(Map.of(rolledBack.claimId(), TaskStatus.QUEUED), T0 + 20);
        held = tx.execute(status -> store.succeedInCallerTransaction(rolledBack.claimId(), T0 + 30));
        assertThat(held).as("a claim handed back").isFalse();
        assertThat(view(rolledBack.id()).status()).isEqualTo(TaskStatus.QUEUED);
    }

    @Test
    void thePurgeOfAKeysOldTaskLeavesItsNewTaskAlone() {
        long old = insert(task("t", "k", T0, TaskStatus.SCHEDULED, null));
        store.cancel(old, T0 + 10);
        long current = store.insert(List.of(task("t", "k", T0 + 50, TaskStatus.SCHEDULED, null)), T0 + 20).get(0)
            .id();

        assertThat(store.purge(Map.of(TaskStatus.CANCELLED, T0 + 11), 100, 10_000)).isEqualTo(1);

        assertThat(store.find("t", "k")).map(TaskView::id).contains(current);
        assertThat(store.insert(List.of(task("t", "k", T0 + 90, TaskStatus.SCHEDULED, null)), T0 + 30).get(0))
            .isEqualTo(new InsertedTask(current, false, TaskStatus.SCHEDULED, T0 + 50));
    }

    /** What {@code InsertBatcher} relies on: a refusal for content, so each caller's rows can be written alone. */
    @Test
    void aRowTheTableRefusesFailsTheWholeCallAndStoresNothingOfIt() {
        List<NewTask> tasks = List.of(task("ok", "k1", T0, TaskStatus.SCHEDULED, null),
                task("ok", null, T0, TaskStatus.SCHEDULED, null),
                task("x".repeat(TaskTable.MAX_TYPE_LENGTH + 1), null, T0, TaskStatus.SCHEDULED, null));

        assertThatExceptionOfType(DataIntegrityViolationException.class).isThrownBy(() -> store.insert(tasks, T0));

        assertThat(store.find("ok", "k1")).isEmpty();
        assertThat(store.pending(TaskStatus.SCHEDULED, new DueTask(0, Long.MIN_VALUE), 10)).isEmpty();
    }

    /**
     * What {@code InsertBatcher} relies on when it writes several callers' rows together: {@code insertShared} stores
     * them as {@code insert} does (it may only give up sooner on a lock, storing nothing).
     */
    @Test
    void aSharedInsertStoresAsAnInsertDoes() {
        long existing = insert(task("shared", "k1", T0, TaskStatus.SCHEDULED, null));
        List<InsertedTask> inserted = store.insertShared(List.of(task("shared", "k1", T0 + 5, TaskStatus.SCHEDULED,
                null), task("shared", null, T0, TaskStatus.SCHEDULED, null), task("shared", "k2", T0,
                        TaskStatus.SCHEDULED, null), task("shared", "k2", T0 + 5, TaskStatus.SCHEDULED, null)), T0);

        assertThat(inserted).hasSize(4);
        assertThat(inserted.get(0)).isEqualTo(new InsertedTask(existing, false, TaskStatus.SCHEDULED, T0));
        assertThat(inserted.get(1).created()).isTrue();
        assertThat(inserted.get(2).created()).isTrue();
        assertThat(inserted.get(3)).as("a key twice in one write: one task")
            .isEqualTo(new InsertedTask(inserted.get(2).id(), false, TaskStatus.SCHEDULED, T0));
        assertThat(store.find("shared", "k2")).map(TaskView::id).contains(inserted.get(2).id());
    }

    @Test
    void concurrentInsertsOfOneKeyAllGetTheOneTask() throws Exception {
        List<List<InsertedTask>> rounds = raceForOneKey("race");
        for (int round = 0; round < rounds.size(); round++) {
            assertThat(rounds.get(round)).extracting(InsertedTask::id).as("round %d", round)
                .containsOnly(store.find("race", "k" + round).orElseThrow().id());
        }
    }

    /**
     * And only one of them is told it created it; the others are told it existed, so the queue counts one scheduled
     * task, not one per caller (its {@code scheduled} event, the {@code delay.tasks.scheduled} counter).
     */
    @Test
    protected void ofConcurrentInsertsOfOneKeyOneIsToldItCreatedTheTask() throws Exception {
        List<List<InsertedTask>> rounds = raceForOneKey("race");
        for (int round = 0; round < rounds.size(); round++) {
            assertThat(rounds.get(round)).filteredOn(InsertedTask::created).as("round %d: created", round).hasSize(1);
        }
    }

    /** Rounds of four instances inserting one key of {@code type} at once: the answers of each round. */
    private List<List<InsertedTask>> raceForOneKey(String type) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<TaskStore> instances = List.of(store, anotherInstance(), anotherInstance(), anotherInstance());
            List<List<InsertedTask>> rounds = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                NewTask task = task(type, "k" + round, T0, TaskStatus.SCHEDULED, null);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<InsertedTask>> results = new ArrayList<>();
                for (TaskStore instance : instances) {
                    results.add(pool.submit(() -> {
                        go.await();
                        return instance.insert(List.of(task), T0).get(0);
                    }));
                }
                go.countDown();
                List<InsertedTask> answers = new ArrayList<>();
                for (Future<InsertedTask> result : results) {
                    answers.add(result.get(30, TimeUnit.SECONDS));
                }
                rounds.add(answers);
            }
            return rounds;
        }
        finally {
            pool.shutdownNow();
        }
    }

    // --- keyed changes: replace, debounce --------------------------------------------------------------------

    @Test
    void aReplaceGivesTheKeysPendingTaskTheRequestsPayloadDueTimeTierAndAttempts() {
        long id = insert(task("t", "k", T0 + 60_000, TaskStatus.SCHEDULED, null));

        InsertedTask replaced = store.insert(List.of(changing("t", "k", "\"new\"", T0 + 500, TaskStatus.QUEUED, 7,
                KeyMode.REPLACE, NewTask.NO_MAX_DELAY)), T0 + 100).get(0);

        assertThat(replaced).isEqualTo(new InsertedTask(id, Scheduled.Outcome.REPLACED, TaskStatus.QUEUED, T0 + 500));
        TaskView stored = view(id);
        assertThat(stored.status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(stored.dueAt()).isEqualTo(Instant.ofEpochMilli(T0 + 500));
        assertThat(stored.maxAttempts()).isEqualTo(7);
        assertThat(store.claimIds(List.of(id), T0 + 500, lease("a", T0 + 30_000)).get(0).payload())
            .isEqualTo("\"new\"");
    }

    /** Only out, never in; never past the first request plus the limit; with the tier of where it ends. */
    @Test
    void aDebounceMovesTheDueTimeOutNeverInAndNeverPastTheLimit() {
        long id = insert(task("t", "k", T0 + 1_000, TaskStatus.QUEUED, null));
        long nearUpTo = T0 + 5_000; // the near tier ends 5 s after T0 in these calls

        assertThat(debounce("k", T0 + 3_000, nearUpTo, NewTask.NO_MAX_DELAY))
            .isEqualTo(new InsertedTask(id, Scheduled.Outcome.EXTENDED, TaskStatus.QUEUED, T0 + 3_000));
        assertThat(debounce("k", T0 + 2_000, nearUpTo, NewTask.NO_MAX_DELAY)).as("never earlier")
            .isEqualTo(new InsertedTask(id, Scheduled.Outcome.EXTENDED, TaskStatus.QUEUED, T0 + 3_000));
        assertThat(debounce("k", T0 + 9_000, nearUpTo, 8_000)).as("the limit from its creation, T0")
            .isEqualTo(new InsertedTask(id, Scheduled.Outcome.EXTENDED, TaskStatus.SCHEDULED, T0 + 8_000));
        assertThat(debounce("k", T0 + 60_000, nearUpTo, NewTask.NO_MAX_DELAY)).as("without a limit")
            .isEqualTo(new InsertedTask(id, Scheduled.Outcome.EXTENDED, TaskStatus.SCHEDULED, T0 + 60_000));
        assertThat(view(id).dueAt()).isEqualTo(Instant.ofEpochMilli(T0 + 60_000));
        assertThat(view(id).status()).isEqualTo(TaskStatus.SCHEDULED);
    }

    @Test
    void aChangeOfAKeyNoLiveTaskHoldsCreatesTheTaskAndARunningOneIsNeverChanged() {
        InsertedTask created = debounce("k", T0 + 1_000, T0 + 5_000, NewTask.NO_MAX_DELAY);
        assertThat(created.created()).isTrue();
        ClaimedTask running = store.claimIds(List.of(created.id()), T0 + 1_000, lease("a", T0 + 30_000)).get(0);

        for (KeyMode mode : List.of(KeyMode.KEEP, KeyMode.REPLACE, KeyMode.DEBOUNCE)) { // runOnceMore: its own test
            assertThat(store.insert(List.of(changing("t", "k", "\"x\"", T0 + 2_000, TaskStatus.QUEUED, null, mode,
                    NewTask.NO_MAX_DELAY)), T0 + 1_500)).as(mode.name())
                .containsExactly(new InsertedTask(created.id(), Scheduled.Outcome.KEPT, TaskStatus.RUNNING,
                        T0 + 1_000));
        }
        store.finish(List.of(new Completion.Succeeded(running.id(), running.claim())), T0 + 1_600);
        InsertedTask after = debounce("k", T0 + 4_000, T0 + 5_000, NewTask.NO_MAX_DELAY);
        assertThat(after.created()).as("the key is free once it ran").isTrue();
        assertThat(after.id()).isNotEqualTo(created.id());
    }

    /** Many instances debouncing one key at once: one task, created once, with the latest due time of all. */
    @Test
    void concurrentDebouncesOfOneKeyLeaveOneTaskWithTheLatestDueTime() throws Exception {
        int callers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            for (int round = 0; round < 5; round++) {
                String key = "d" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<InsertedTask>> results = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    TaskStore instance = i % 2 == 0 ? store : anotherInstance();
                    NewTask task = changing("t", key, "\"" + i + "\"", T0 + 1_000 + i * 100L, TaskStatus.QUEUED, null,
                            KeyMode.DEBOUNCE, NewTask.NO_MAX_DELAY);
                    results.add(pool.submit(() -> {
                        go.await();
                        return instance.insert(List.of(task), T0).get(0);
                    }));
                }
                go.countDown();
                List<InsertedTask> answers = new ArrayList<>();
                for (Future<InsertedTask> result : results) {
                    answers.add(result.get(30, TimeUnit.SECONDS));
                }
                TaskView task = store.find("t", key).orElseThrow();
                assertThat(answers).extracting(InsertedTask::id).as("round %d", round).containsOnly(task.id());
                assertThat(answers).filteredOn(InsertedTask::created).as("round %d: created", round).hasSize(1);
                assertThat(task.dueAt()).as("round %d: the latest", round)
                    .isEqualTo(Instant.ofEpochMilli(T0 + 1_000 + (callers - 1) * 100L));
                assertThat(store.pending(TaskStatus.QUEUED, new DueTask(0, Long.MIN_VALUE), 100))
                    .filteredOn(due -> due.id() == task.id()).hasSize(1);
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** One follow-up per running task, released (pending) once no live task holds the key, never before. */
    @Test
    void runOnceMoreKeepsAPendingTaskAndGivesARunningOneExactlyOneFollowUp() {
        InsertedTask first = onceMore("k", T0 + 100);
        assertThat(first.created()).isTrue();
        assertThat(onceMore("k", T0 + 200)).as("pending: it covers the request")
            .isEqualTo(new InsertedTask(first.id(), Scheduled.Outcome.KEPT, TaskStatus.QUEUED, T0 + 100));
        ClaimedTask running = store.claimIds(List.of(first.id()), T0 + 100, lease("a", T0 + 30_000)).get(0);

        InsertedTask followUp = onceMore("k", T0 + 300);
        assertThat(followUp.outcome()).isEqualTo(Scheduled.Outcome.QUEUED_AFTER_RUNNING);
        assertThat(followUp.id()).isNotEqualTo(first.id());
        assertThat(followUp.status()).isEqualTo(TaskStatus.WAITING);
        assertThat(onceMore("k", T0 + 400)).as("folds into the one follow-up")
            .isEqualTo(new InsertedTask(followUp.id(), Scheduled.Outcome.QUEUED_AFTER_RUNNING, TaskStatus.WAITING,
                    T0 + 300));
        assertThat(store.claimDue(TaskStatus.QUEUED, T0 + 10_000, 10, lease("b", T0 + 30_000))).as("never claimed")
            .isEmpty();
        assertThat(store.releaseWaiting(T0 + 5_000, 10, T0 + 500)).as("not while the task runs").isEmpty();

        store.finish(List.of(new Completion.Succeeded(running.id(), running.claim())), T0 + 600);
        assertThat(store.releaseWaiting(T0 + 5_000, 10, T0 + 700)).containsExactly(new DueTask(followUp.id(),
                T0 + 300));
        assertThat(view(followUp.id()).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(store.releaseWaiting(T0 + 5_000, 10, T0 + 800)).isEmpty();
        assertThat(store.insert(List.of(task("t", "k", T0 + 900, TaskStatus.QUEUED, null)), T0 + 800))
            .as("the follow-up holds the key now")
            .containsExactly(new InsertedTask(followUp.id(), false, TaskStatus.QUEUED, T0 + 300));
    }

    @Test
    void aReleasedFollowUpGoesToTheTierOfItsDueTime() {
        InsertedTask first = onceMore("k", T0);
        ClaimedTask running = store.claimIds(List.of(first.id()), T0, lease("a", T0 + 30_000)).get(0);
        InsertedTask followUp = store.insert(List.of(changing("t", "k", "\"p\"", T0 + 60_000, TaskStatus.SCHEDULED,
                null, KeyMode.RUN_ONCE_MORE, NewTask.NO_MAX_DELAY)), T0 + 10).get(0);
        store.finish(List.of(new Completion.Failed(running.id(), running.claim(), 1, "failed")), T0 + 20);

        assertThat(store.releaseWaiting(T0 + 5_000, 10, T0 + 30)).extracting(DueTask::id)
            .containsExactly(followUp.id());
        assertThat(view(followUp.id()).status()).isEqualTo(TaskStatus.SCHEDULED);
    }

    @Test
    void aCancelStopsAWaitingFollowUpAndACancelByKeyStopsBothOfTheKeysUnstartedTasks() {
        InsertedTask first = onceMore("k", T0);
        store.claimIds(List.of(first.id()), T0, lease("a", T0 + 30_000));
        InsertedTask followUp = onceMore("k", T0 + 300);

        assertThat(store.cancel("t", "k", T0 + 10)).hasValue(followUp.id());
        assertThat(view(followUp.id()).status()).isEqualTo(TaskStatus.CANCELLED);
        assertThat(view(first.id()).status()).as("running: not cancelled").isEqualTo(TaskStatus.RUNNING);
        InsertedTask again = onceMore("k", T0 + 400);
        assertThat(again.id()).as("a new follow-up").isNotIn(first.id(), followUp.id());
        assertThat(store.cancel(again.id(), T0 + 20)).contains("t");
    }

    // --- bulk operations --------------------------------------------------------------------------------------

    /**
     * Pages walk a type's unstarted tasks, unkeyed first by id, then by key and id, from any cursor; wildcards in a
     * prefix are plain characters.
     */
    @Test
    void pagesOfUnstartedTasksWalkATypeByKeyFromACursor() {
        long unkeyed = insert(task("t", null, T0, TaskStatus.SCHEDULED, null));
        long b2 = insert(task("t", "b-2", T0, TaskStatus.QUEUED, null));
        long a1 = insert(task("t", "a-1", T0, TaskStatus.SCHEDULED, null));
        long b1 = insert(task("t", "b-1", T0, TaskStatus.SCHEDULED, null));
        long wild = insert(task("t", "b%_x", T0, TaskStatus.SCHEDULED, null));
        insert(task("other", "b-3", T0, TaskStatus.SCHEDULED, null));
        long running = insert(task("t", "b-4", T0, TaskStatus.QUEUED, null));
        store.claimIds(List.of(running), T0, lease("a", T0 + 30_000));

        // keys in binary order: "b%_x" before "b-1" ('%' is 0x25, '-' 0x2D)
        assertThat(store.unstarted("t", null, null, 10)).extracting(TaskView::id)
            .containsExactly(unkeyed, a1, wild, b1, b2);
        List<TaskView> first = store.unstarted("t", "b", null, 2);
        assertThat(first).extracting(TaskView::id).containsExactly(wild, b1);
        assertThat(store.unstarted("t", "b", first.get(1), 2)).extracting(TaskView::id).containsExactly(b2);
        assertThat(store.unstarted("t", null, store.unstarted("t", null, null, 1).get(0), 2)).extracting(TaskView::id)
            .as("from the unkeyed to the keyed").containsExactly(a1, wild);
        assertThat(store.unstarted("t", "b%", null, 10)).extracting(TaskView::id).as("% is a character")
            .containsExactly(wild);
        assertThat(store.unstarted("t", "", null, 10)).extracting(TaskView::id).as("every keyed task")
            .containsExactly(a1, wild, b1, b2);
    }

    @Test
    void aBulkCancelStopsTheUnstartedOnesAndSaysWhich() {
        long pending = insert(task("t", "k1", T0, TaskStatus.QUEUED, null));
        long running = insert(task("t", "k2", T0, TaskStatus.QUEUED, null));
        store.claimIds(List.of(running), T0, lease("a", T0 + 30_000));
        InsertedTask followUp = store.insert(List.of(changing("t", "k2", "\"p\"", T0, TaskStatus.QUEUED, null,
                KeyMode.RUN_ONCE_MORE, NewTask.NO_MAX_DELAY)), T0).get(0);

        assertThat(store.cancelUnstarted(List.of(pending, running, followUp.id(), 999_999L), T0 + 10))
            .containsExactlyInAnyOrder(pending, followUp.id());
        assertThat(store.cancelUnstarted(List.of(pending), T0 + 20)).as("once").isEmpty();
        assertThat(view(running).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(view(pending).updatedAt()).isEqualTo(Instant.ofEpochMilli(T0 + 10));
    }

    @Test
    void aBulkMoveOrShiftChangesPendingTasksIntoTheTierOfTheirNewTime() {
        long near = insert(task("t", "k1", T0 + 1_000, TaskStatus.QUEUED, null));
        long far = insert(task("t", "k2", T0 + 60_000, TaskStatus.SCHEDULED, null));
        long running = insert(task("t", "k3", T0, TaskStatus.QUEUED, null));
        store.claimIds(List.of(running), T0, lease("a", T0 + 30_000));

        assertThat(store.shiftPending(List.of(near, far, running), 2_000, T0 + 5_000, T0 + 10))
            .extracting(TaskView::id, TaskView::status, TaskView::dueAt)
            .containsExactlyInAnyOrder(tuple(near, TaskStatus.QUEUED, Instant.ofEpochMilli(T0 + 3_000)),
                    tuple(far, TaskStatus.SCHEDULED, Instant.ofEpochMilli(T0 + 62_000)));
        assertThat(store.movePending(List.of(near, far, running), T0 + 4_000, T0 + 5_000, T0 + 20))
            .extracting(TaskView::id, TaskView::status).containsExactlyInAnyOrder(tuple(near, TaskStatus.QUEUED),
                    tuple(far, TaskStatus.QUEUED));
        assertThat(view(far).dueAt()).isEqualTo(Instant.ofEpochMilli(T0 + 4_000));
        assertThat(view(running).dueAt()).as("running: untouched").isEqualTo(Instant.ofEpochMilli(T0));
    }

    private InsertedTask onceMore(String key, long dueAt) {
        return store.insert(List.of(changing("t", key, "\"p\"", dueAt, TaskStatus.QUEUED, null,
                KeyMode.RUN_ONCE_MORE, NewTask.NO_MAX_DELAY)), T0 + 10).get(0);
    }

    private InsertedTask debounce(String key, long dueAt, long nearUpTo, long maxDelayMillis) {
        TaskStatus status = dueAt <= nearUpTo ? TaskStatus.QUEUED : TaskStatus.SCHEDULED;
        return store.insert(List.of(new NewTask("t", key, "\"p\"", dueAt, status, null, KeyMode.DEBOUNCE,
                maxDelayMillis, nearUpTo)), T0 + 10).get(0);
    }

    /** A request that changes the key's pending task; the near tier ends at {@code T0 + 5 s}. */
    private static NewTask changing(String type, String key, String payload, long dueAt, TaskStatus status,
            Integer maxAttempts, KeyMode mode, long maxDelayMillis) {
        return new NewTask(type, key, payload, dueAt, status, maxAttempts, mode, maxDelayMillis, T0 + 5_000);
    }

    // --- claim ------------------------------------------------------------------------------------------------

    @Test
    void claimDueTakesDueTasksOfOneStatusEarliestFirstUpToTheLimit() {
        long second = insert(task("t", "k", T0 - 1, TaskStatus.SCHEDULED, 4));
        long first = insert(task("t", null, T0 - 3, TaskStatus.SCHEDULED, null));
        long notDue = insert(task("t", null, T0 + 1, TaskStatus.SCHEDULED, null));
        long otherTier = insert(task("t", null, T0 - 5, TaskStatus.QUEUED, null));

        List<ClaimedTask> one = store.claimDue(TaskStatus.SCHEDULED, T0, 1, lease("a", T0 + 30_000));
        List<ClaimedTask> rest = store.claimDue(TaskStatus.SCHEDULED, T0, 10, lease("a", T0 + 30_000));

        assertThat(one).extracting(ClaimedTask::id).containsExactly(first);
        assertThat(rest).extracting(ClaimedTask::id).containsExactly(second);
        assertThat(rest.get(0)).isEqualTo(new ClaimedTask(second, "t", "k", "\"p\"", T0 - 1, 1, 4, T0, 1));
        assertThat(view(first).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(view(first).attempts()).as("counted when its handler starts").isZero();
        assertThat(view(notDue).status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(view(otherTier).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(store.claimDue(TaskStatus.SCHEDULED, T0, 0, lease("a", T0 + 30_000))).isEmpty();
    }

    @Test
    void aRunningTaskIsNotClaimedAgain() {
        long id = insert(task("t", null, T0, TaskStatus.QUEUED, null));
        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 10, lease("a", T0 + 30_000))).hasSize(1);

        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 10, lease("b", T0 + 30_000))).isEmpty();
        assertThat(store.claimIds(List.of(id), T0, lease("b", T0 + 30_000))).isEmpty();
    }

    @Test
    void claimIdsTakesThoseOfTheIdsThatArePendingAndDue() {
        long scheduled = insert(task("t", null, T0 - 1, TaskStatus.SCHEDULED, null));
        long queued = insert(task("t", null, T0, TaskStatus.QUEUED, null));
        long notDue = insert(task("t", null, T0 + 1, TaskStatus.QUEUED, null));
        long cancelled = insert(task("t", null, T0, TaskStatus.QUEUED, null));
        store.cancel(cancelled, T0);

        List<ClaimedTask> claimed = store.claimIds(List.of(scheduled, queued, notDue, cancelled, 999_999L), T0,
                lease("a", T0 + 30_000));

        assertThat(claimed).extracting(ClaimedTask::id).containsExactlyInAnyOrder(scheduled, queued);
        assertThat(view(notDue).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(cancelled).status()).isEqualTo(TaskStatus.CANCELLED);
        assertThat(store.claimIds(List.of(), T0, lease("a", T0 + 30_000))).isEmpty();
    }

    /**
     * The engine claims only the types it can start (it has their handler, they are not paused or at their limit):
     * a task of another type stays pending, whichever way it is claimed, for an instance that runs it.
     */
    @Test
    void typedClaimsTakeOnlyTasksOfTheGivenTypesAndLeaveTheRestPending() {
        long other = insert(task("other", null, T0 - 9, TaskStatus.QUEUED, null));
        long first = insert(task("a", null, T0 - 5, TaskStatus.QUEUED, null));
        long second = insert(task("b", null, T0 - 1, TaskStatus.QUEUED, null));
        long otherById = insert(task("other", null, T0 - 3, TaskStatus.SCHEDULED, null));
        long byId = insert(task("a", null, T0 - 3, TaskStatus.SCHEDULED, null));

        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 1, Set.of("a", "b"), lease("a", T0 + 30_000)))
            .extracting(ClaimedTask::id).containsExactly(first);
        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 10, Set.of("a", "b"), lease("a", T0 + 30_000)))
            .extracting(ClaimedTask::id).containsExactly(second);
        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 10, Set.of(), lease("a", T0 + 30_000))).isEmpty();
        assertThat(store.claimIds(List.of(otherById, byId, other), T0, Set.of("a"), lease("a", T0 + 30_000)))
            .extracting(ClaimedTask::id).containsExactly(byId);
        assertThat(store.claimIds(List.of(otherById), T0, Set.of(), lease("a", T0 + 30_000))).isEmpty();
        assertThat(view(other).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(otherById).status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 10, Set.of("other"), lease("b", T0 + 30_000)))
            .extracting(ClaimedTask::id).containsExactly(other);
    }

    /** A claim of several types takes the oldest of all of them first, whatever their type, up to its size. */
    @Test
    void typedClaimsTakeTheOldestOverAllTheirTypes() {
        insert(task("other", null, T0 - 9, TaskStatus.QUEUED, null));
        long a1 = insert(task("a", null, T0 - 8, TaskStatus.QUEUED, null));
        long b1 = insert(task("b", null, T0 - 7, TaskStatus.QUEUED, null));
        long a2 = insert(task("a", null, T0 - 6, TaskStatus.QUEUED, null));
        long b2 = insert(task("b", null, T0 - 5, TaskStatus.QUEUED, null));
        long a3 = insert(task("a", null, T0 - 4, TaskStatus.QUEUED, null));

        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 3, Set.of("a", "b"), lease("a", T0 + 30_000)))
            .extracting(ClaimedTask::id).containsExactly(a1, b1, a2);
        assertThat(store.claimDue(TaskStatus.QUEUED, T0, 3, Set.of("a", "b"), lease("a", T0 + 30_000)))
            .extracting(ClaimedTask::id).containsExactly(b2, a3);
    }

    /**
     * Instances claiming several types at once take disjoint tasks and, claiming until they find none, together all
     * of those types, none of a type they skip: a claim skips rows another one holds and reads on for others.
     */
    @Test
    void concurrentClaimersOfSeveralTypesTakeDisjointTasksAndTogetherTakeAll() throws Exception {
        Set<Long> ids = new HashSet<>();
        List<NewTask> tasks = new ArrayList<>();
        List<String> types = List.of("a", "b", "c", "skipped");
        for (int i = 0; i < 1_200; i++) {
            tasks.add(task(types.get(i % types.size()), null, T0 - i % 11, TaskStatus.QUEUED, null));
        }
        Set<Long> skipped = new HashSet<>();
        List<InsertedTask> inserted = store.insert(tasks, T0);
        for (int i = 0; i < inserted.size(); i++) {
            (types.get(i % types.size()).equals("skipped") ? skipped : ids).add(inserted.get(i).id());
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<List<Long>>> claimers = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                TaskStore instance = anotherInstance();
                Lease lease = lease("owner-" + c, T0 + 30_000);
                claimers.add(() -> {
                    List<Long> mine = new ArrayList<>();
                    List<ClaimedTask> batch;
                    do {
                        batch = instance.claimDue(TaskStatus.QUEUED, T0, 25, Set.of("a", "b", "c"), lease);
                        batch.forEach(task -> mine.add(task.id()));
                    }
                    while (!batch.isEmpty());
                    return mine;
                });
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> claimer : pool.invokeAll(claimers, 60, TimeUnit.SECONDS)) {
                all.addAll(claimer.get());
            }
            assertThat(all).doesNotHaveDuplicates();
            assertThat(new HashSet<>(all)).isEqualTo(ids);
            assertThat(skipped).allSatisfy(id -> assertThat(view(id).status()).isEqualTo(TaskStatus.QUEUED));
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentClaimersTakeDisjointTasksAndTogetherTakeAll() throws Exception {
        Set<Long> ids = new HashSet<>();
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            tasks.add(task("t", null, T0 - i % 7, TaskStatus.SCHEDULED, null));
        }
        store.insert(tasks, T0).forEach(task -> ids.add(task.id()));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<List<Long>>> claimers = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                TaskStore instance = anotherInstance();
                Lease lease = lease("owner-" + c, T0 + 30_000);
                claimers.add(() -> {
                    List<Long> mine = new ArrayList<>();
                    List<ClaimedTask> batch;
                    do {
                        batch = instance.claimDue(TaskStatus.SCHEDULED, T0, 25, lease);
                        batch.forEach(task -> mine.add(task.id()));
                    }
                    while (!batch.isEmpty());
                    return mine;
                });
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> claimer : pool.invokeAll(claimers, 60, TimeUnit.SECONDS)) {
                all.addAll(claimer.get());
            }
            assertThat(all).doesNotHaveDuplicates();
            assertThat(new HashSet<>(all)).isEqualTo(ids);
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aClaimAndACancelRacingForOneTaskHaveExactlyOneWinner() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            TaskStore claimer = anotherInstance();
            for (int round = 0; round < 50; round++) {
                long id = insert(task("race", null, T0, TaskStatus.QUEUED, null));
                CountDownLatch go = new CountDownLatch(1);
                Future<List<ClaimedTask>> claimed = pool.submit(() -> {
                    go.await();
                    return claimer.claimIds(List.of(id), T0, lease("a", T0 + 30_000));
                });
                Future<Optional<String>> cancelled = pool.submit(() -> {
                    go.await();
                    return store.cancel(id, T0);
                });
                go.countDown();
                boolean claimWon = !claimed.get(30, TimeUnit.SECONDS).isEmpty();
                boolean cancelWon = cancelled.get(30, TimeUnit.SECONDS).isPresent();
                assertThat(claimWon ^ cancelWon).as("round %d: claim %s, cancel %s", round, claimWon, cancelWon)
                    .isTrue();
                assertThat(view(id).status()).isEqualTo(claimWon ? TaskStatus.RUNNING : TaskStatus.CANCELLED);
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    // --- start and finish -------------------------------------------------------------------------------------

    @Test
    void anAttemptCountsOnceWhenItsHandlerStarts() {
        ClaimedTask claimed = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        assertThat(claimed.attempt()).isEqualTo(1);

        store.markStarted(List.of(claimed.claimId()), T0 + 1);
        store.markStarted(List.of(claimed.claimId()), T0 + 2); // a write retried after a lost answer

        assertThat(view(claimed.id()).attempts()).isEqualTo(1);
        assertThat(view(claimed.id()).updatedAt()).as("the status did not change")
            .isEqualTo(Instant.ofEpochMilli(T0));
    }

    /** The result writer sends a start and an end that fall in one batch as the end alone. */
    @Test
    void aSuccessCountsItsAttemptOnceWithOrWithoutItsStart() {
        ClaimedTask unstarted = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        ClaimedTask started = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        store.markStarted(List.of(started.claimId()), T0 + 1);

        store.finish(List.of(new Completion.Succeeded(unstarted.id(), unstarted.claim()),
                new Completion.Succeeded(started.id(), started.claim())), T0 + 5);

        for (long id : List.of(unstarted.id(), started.id())) {
            assertThat(view(id).status()).isEqualTo(TaskStatus.SUCCEEDED);
            assertThat(view(id).attempts()).isEqualTo(1);
            assertThat(view(id).updatedAt()).as("when it finished, which the purge goes by")
                .isEqualTo(Instant.ofEpochMilli(T0 + 5));
        }
    }

    @Test
    void aRetryMakesTheTaskPendingAgainUnderItsNewDueTimeAndADeadLetterKeepsItsError() {
        ClaimedTask retried = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        ClaimedTask failed = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        store.markStarted(List.of(retried.claimId(), failed.claimId()), T0 + 1);

        store.finish(List.of(new Completion.Retry(retried.id(), retried.claim(), TaskStatus.SCHEDULED, T0 + 10_000, 1,
                "boom"), new Completion.Failed(failed.id(), failed.claim(), 1, "bad payload")), T0 + 5);

        TaskView retry = view(retried.id());
        assertThat(retry.status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(retry.dueAt()).isEqualTo(Instant.ofEpochMilli(T0 + 10_000));
        assertThat(retry.attempts()).isEqualTo(1);
        assertThat(retry.lastError()).isEqualTo("boom");
        assertThat(view(failed.id()).status()).isEqualTo(TaskStatus.FAILED);
        assertThat(view(failed.id()).lastError()).isEqualTo("bad payload");
        assertThat(view(failed.id()).attempts()).isEqualTo(1);
        assertThat(store.claimedBy("a", T0)).as("neither is held any more").isEmpty();

        ClaimedTask again = store.claimDue(TaskStatus.SCHEDULED, T0 + 10_000, 10, lease("b", T0 + 40_000)).get(0);
        assertThat(again.id()).isEqualTo(retried.id());
        assertThat(again.claim()).isEqualTo(retried.claim() + 1);
        assertThat(again.attempt()).isEqualTo(2);
    }

    /**
     * A payload that does not bind parks its task: kept with the reason, claimed no more, holding its key no more (a
     * new task of its type and key is created), never purged with the dead letters.
     */
    @Test
    void aParkedTaskKeepsItsReasonIsNotClaimedHoldsNoKeyAndIsNotPurged() {
        ClaimedTask claimed = claimOne(task("t", "k-1", T0, TaskStatus.QUEUED, null), "a");
        store.markStarted(List.of(claimed.claimId()), T0 + 1);

        store.finish(List.of(new Completion.Parked(claimed.id(), claimed.claim(), 1, "payload does not bind")),
                T0 + 5);

        TaskView parked = view(claimed.id());
        assertThat(parked.status()).isEqualTo(TaskStatus.PARKED);
        assertThat(parked.lastError()).isEqualTo("payload does not bind");
        assertThat(parked.errors()).extracting(TaskView.FailedAttempt::error).containsExactly("payload does not bind");
        assertThat(store.claimedBy("a", T0)).as("no longer held").isEmpty();
        assertThat(store.claimDue(TaskStatus.QUEUED, T0 + 60_000, 10, lease("b", T0 + 90_000))).isEmpty();
        assertThat(store.claimDue(TaskStatus.SCHEDULED, T0 + 60_000, 10, lease("b", T0 + 90_000))).isEmpty();
        InsertedTask again = store.insert(List.of(task("t", "k-1", T0 + 100, TaskStatus.QUEUED, null)), T0 + 10)
            .get(0);
        assertThat(again.created()).as("a parked task holds no key").isTrue();
        assertThat(store.purge(Map.of(TaskStatus.FAILED, T0 + 1_000, TaskStatus.SUCCEEDED, T0 + 1_000,
                TaskStatus.CANCELLED, T0 + 1_000), 100, 10_000)).isZero();
        assertThat(view(claimed.id()).status()).isEqualTo(TaskStatus.PARKED);
    }

    @Test
    void aLongErrorIsCutToTheColumnsLength() {
        ClaimedTask claimed = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        String error = "y".repeat(100) + "x".repeat(10_000);

        store.finish(List.of(new Completion.Failed(claimed.id(), claimed.claim(), 1, error)), T0);

        assertThat(view(claimed.id()).lastError()).startsWith("y".repeat(100))
            .hasSizeLessThanOrEqualTo(TaskTable.MAX_ERROR_LENGTH);
    }

    @Test
    void aFinishedClaimIsNotFinishedAgain() {
        ClaimedTask claimed = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        store.finish(List.of(new Completion.Succeeded(claimed.id(), claimed.claim())), T0 + 1);

        store.finish(List.of(new Completion.Failed(claimed.id(), claimed.claim(), 1, "late"),
                new Completion.Retry(claimed.id(), claimed.claim(), TaskStatus.QUEUED, T0, 1, "late")), T0 + 2);

        assertThat(view(claimed.id()).status()).isEqualTo(TaskStatus.SUCCEEDED);
        assertThat(view(claimed.id()).lastError()).isNull();
    }

    /**
     * Each failed attempt keeps its error, not only the last: the latest {@link TaskTable#MAX_ERROR_HISTORY}, oldest
     * first, each with the attempts counted and when it was written, cut as {@code lastError} is, whatever it holds
     * (line breaks, quotes). Retries and the dead letter add to it alike; a success adds nothing.
     */
    @Test
    void eachFailedAttemptKeepsItsErrorOldestFirstUpToTheBound() {
        long id = insert(task("t", null, T0, TaskStatus.QUEUED, null));
        int failures = TaskTable.MAX_ERROR_HISTORY + 2;
        for (int attempt = 1; attempt <= failures; attempt++) {
            long at = T0 + attempt * 1_000L;
            ClaimedTask claimed = store.claimIds(List.of(id), at, new Lease("a", at + 30_000, at)).get(0);
            store.markStarted(List.of(claimed.claimId()), at);
            store.finish(List.of(attempt < failures
                    ? new Completion.Retry(id, claimed.claim(), TaskStatus.QUEUED, at, attempt, "boom " + attempt)
                    : new Completion.Failed(id, claimed.claim(), attempt, "gave up on " + attempt)), at + 1);
            if (attempt == 2) {
                assertThat(view(id).errors()).containsExactly(
                        new FailedAttempt(1, Instant.ofEpochMilli(T0 + 1_001), "boom 1"),
                        new FailedAttempt(2, Instant.ofEpochMilli(T0 + 2_001), "boom 2"));
            }
        }

        TaskView dead = view(id);
        assertThat(dead.status()).isEqualTo(TaskStatus.FAILED);
        assertThat(dead.errors()).as("the latest ones, oldest first").hasSize(TaskTable.MAX_ERROR_HISTORY)
            .extracting(FailedAttempt::attempt)
            .containsExactlyElementsOf(IntStream.rangeClosed(3, failures).boxed().toList());
        assertThat(dead.errors().get(TaskTable.MAX_ERROR_HISTORY - 1))
            .isEqualTo(new FailedAttempt(failures, Instant.ofEpochMilli(T0 + failures * 1_000L + 1),
                    "gave up on " + failures));
        assertThat(dead.errors().get(TaskTable.MAX_ERROR_HISTORY - 1).error()).isEqualTo(dead.lastError());
    }

    @Test
    void theErrorHistoryKeepsAnErrorAsLastErrorDoesAndASuccessAddsNothing() {
        ClaimedTask claimed = claimOne(task("t", "k", T0, TaskStatus.QUEUED, null), "a");
        String error = "line 1\nline \"2\" \\ caf\u00e9 \u2603\t{}[]," + "x".repeat(TaskTable.MAX_ERROR_LENGTH);
        store.markStarted(List.of(claimed.claimId()), T0 + 1);
        store.finish(List.of(new Completion.Retry(claimed.id(), claimed.claim(), TaskStatus.QUEUED, T0, 1, error)),
                T0 + 2);
        ClaimedTask again = store.claimIds(List.of(claimed.id()), T0, lease("a", T0 + 30_000)).get(0);
        store.finish(List.of(new Completion.Succeeded(again.id(), again.claim())), T0 + 3);

        TaskView view = view(claimed.id());
        assertThat(view.status()).isEqualTo(TaskStatus.SUCCEEDED);
        assertThat(view.errors()).singleElement()
            .isEqualTo(new FailedAttempt(1, Instant.ofEpochMilli(T0 + 2), TaskTable.fitError(error)));
        assertThat(store.find("t", "k")).contains(view);
        assertThat(view(insert(task("t", null, T0, TaskStatus.QUEUED, null))).errors()).isEmpty();
    }

    @Test
    void thePurgeTakesATasksErrorHistoryWithIt() {
        long failed = finished(TaskStatus.FAILED, T0);
        assertThat(view(failed).errors()).hasSize(1);

        assertThat(store.purge(Map.of(TaskStatus.FAILED, T0 + 1), 100, 10_000)).isEqualTo(1);

        assertThat(store.find(failed)).isEmpty();
    }

    /**
     * The trace a task was scheduled in comes back with each of its claims, as it was stored: after a retry too, and
     * as long as the column allows. A task scheduled outside a trace has none.
     */
    @Test
    void theTraceContextOfATaskComesBackWithItsClaims() {
        String traceparent = "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        String longest = traceparent + "\nbaggage="
                + "k".repeat(TaskTable.MAX_TRACE_CONTEXT_LENGTH - traceparent.length() - 9);
        long traced = insert(traced(traceparent));
        long full = insert(traced(longest));
        long plain = insert(task("t", null, T0, TaskStatus.QUEUED, null));

        List<ClaimedTask> claimed = store.claimDue(TaskStatus.QUEUED, T0, 10, lease("a", T0 + 30_000));

        assertThat(claimed).extracting(ClaimedTask::id, ClaimedTask::traceContext)
            .containsExactlyInAnyOrder(tuple(traced, traceparent), tuple(full, longest), tuple(plain, null));
        assertThat(store.claimedBy("a", T0)).extracting(ClaimedTask::id, ClaimedTask::traceContext)
            .containsExactlyInAnyOrder(tuple(traced, traceparent), tuple(full, longest), tuple(plain, null));
        ClaimedTask first = claimed.stream().filter(task -> task.id() == traced).findFirst().orElseThrow();
        store.finish(List.of(new Completion.Retry(traced, first.claim(), TaskStatus.QUEUED, T0, 1, "boom")), T0);
        assertThat(store.claimIds(List.of(traced), T0, lease("b", T0 + 30_000)))
            .extracting(ClaimedTask::traceContext).containsExactly(traceparent);
    }

    /**
     * The fence of "a claim is one process's": once a lease ran out and another instance claimed the task, every
     * write of the first claim (start, renewal, result, hand-back) changes nothing, and the new claim's writes work.
     */
    @Test
    void theWritesOfAClaimThatWasTakenOverChangeNothing() {
        ClaimedTask stale = store.claimIds(List.of(insert(task("t", null, T0, TaskStatus.QUEUED, null))), T0,
                lease("a", T0 + 1_000)).get(0);
        store.recoverExpiredLeases(T0 + 1_001, 10, expired -> new Completion.Retry(expired.id(), expired.claim(),
                TaskStatus.QUEUED, T0 + 1_001, expired.attempts(), "lease expired"));
        ClaimedTask current = store.claimIds(List.of(stale.id()), T0 + 1_001, lease("b", T0 + 60_000)).get(0);
        assertThat(current.claim()).isEqualTo(stale.claim() + 1);

        store.markStarted(List.of(stale.claimId()), T0 + 1_002);
        assertThat(store.extendLeases(List.of(stale.claimId()), T0 + 90_000)).isEmpty();
        store.release(Map.of(stale.claimId(), TaskStatus.QUEUED), T0 + 1_003);
        store.finish(List.of(new Completion.Succeeded(stale.id(), stale.claim()),
                new Completion.Failed(stale.id(), stale.claim(), 1, "stale")), T0 + 1_004);

        assertThat(view(stale.id()).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(view(stale.id()).attempts()).isZero();
        assertThat(store.claimedBy("b", T0 + 1_004)).extracting(ClaimedTask::claimId)
            .containsExactly(current.claimId());
        assertThat(store.extendLeases(List.of(current.claimId()), T0 + 90_000)).containsExactly(current.claimId());
        store.finish(List.of(new Completion.Succeeded(current.id(), current.claim())), T0 + 1_005);
        assertThat(view(stale.id()).status()).isEqualTo(TaskStatus.SUCCEEDED);
    }

    @Test
    void aBatchOfResultsWritesThoseOfTheClaimsStillHeld() {
        ClaimedTask lost = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        ClaimedTask held = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        Completion forLost = new Completion.Succeeded(lost.id(), lost.claim() + 1); // a claim it never had

        store.finish(List.of(forLost, new Completion.Succeeded(held.id(), held.claim())), T0 + 1);

        assertThat(view(lost.id()).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(view(held.id()).status()).isEqualTo(TaskStatus.SUCCEEDED);
    }

    // --- leases -----------------------------------------------------------------------------------------------

    @Test
    void renewalExtendsTheLeasesOfTheClaimsStillHeldAndSaysWhich() {
        ClaimedTask first = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        ClaimedTask finished = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        store.finish(List.of(new Completion.Succeeded(finished.id(), finished.claim())), T0 + 1);

        Set<ClaimId> renewed = store.extendLeases(List.of(first.claimId(), finished.claimId()), T0 + 90_000);

        assertThat(renewed).containsExactly(first.claimId());
        assertThat(store.recoverExpiredLeases(T0 + 60_000, 10, expired -> {
            throw new AssertionError("nothing has expired: " + expired);
        })).isEmpty();
        assertThat(store.claimedBy("a", T0 + 89_999)).extracting(ClaimedTask::id).containsExactly(first.id());
        assertThat(view(first.id()).updatedAt()).as("the status did not change").isEqualTo(Instant.ofEpochMilli(T0));
    }

    @Test
    void recoveryTakesRunningTasksWhoseLeaseEndedAndWritesTheDecisions() {
        ClaimedTask started = claimOne(task("s", null, T0 - 5, TaskStatus.QUEUED, 7), "a");
        ClaimedTask unstarted = claimOne(task("u", null, T0, TaskStatus.QUEUED, null), "a");
        long renewed = claimOne(task("r", null, T0, TaskStatus.QUEUED, null), "b").id();
        store.markStarted(List.of(started.claimId()), T0 + 1);
        store.extendLeases(List.of(new ClaimId(renewed, 1)), T0 + 120_000);

        assertThat(store.recoverExpiredLeases(T0 + 30_000, 10, expired -> {
            throw new AssertionError("the lease ends at, not before, " + (T0 + 30_000) + ": " + expired);
        })).as("a lease still holds at its last millisecond").isEmpty();
        List<ExpiredLease> seen = new ArrayList<>();
        List<Completion> decided = store.recoverExpiredLeases(T0 + 30_001, 10, expired -> {
            seen.add(expired);
            return expired.started()
                    ? new Completion.Failed(expired.id(), expired.claim(), expired.attempts(), "instance died")
                    : new Completion.Retry(expired.id(), expired.claim(), TaskStatus.QUEUED, T0 + 30_001,
                            expired.attempts(), "lease expired");
        });

        assertThat(seen).containsExactlyInAnyOrder(
                new ExpiredLease(started.id(), "s", "a", T0 - 5, 1, 7, started.claim(), true),
                new ExpiredLease(unstarted.id(), "u", "a", T0, 0, null, unstarted.claim(), false));
        assertThat(decided).hasSize(2).allSatisfy(completion -> assertThat(completion.id()).isIn(started.id(),
                unstarted.id()));
        assertThat(view(started.id()).status()).isEqualTo(TaskStatus.FAILED);
        assertThat(view(unstarted.id()).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(unstarted.id()).attempts()).as("claimed, never started: not counted").isZero();
        assertThat(view(renewed).status()).isEqualTo(TaskStatus.RUNNING);
    }

    @Test
    void recoveryTakesAtMostTheLimitPerCall() {
        for (int i = 0; i < 5; i++) {
            claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        }

        assertThat(store.recoverExpiredLeases(T0 + 60_000, 2, TaskStoreContract::retryNow)).hasSize(2);
        assertThat(store.recoverExpiredLeases(T0 + 60_000, 10, TaskStoreContract::retryNow)).hasSize(3);
        assertThat(store.recoverExpiredLeases(T0 + 60_000, 10, TaskStoreContract::retryNow)).isEmpty();
    }

    @Test
    void aRecoveryWhoseDecisionFailsWritesNoneOfItsDecisions() {
        ClaimedTask one = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        ClaimedTask two = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        List<Long> decided = new ArrayList<>();

        assertThatIllegalStateException().isThrownBy(() -> store.recoverExpiredLeases(T0 + 60_000, 10, expired -> {
            if (!decided.isEmpty()) {
                throw new IllegalStateException("no decision for " + expired.id());
            }
            decided.add(expired.id());
            return retryNow(expired);
        }));

        assertThat(view(one.id()).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(view(two.id()).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(store.recoverExpiredLeases(T0 + 60_000, 10, TaskStoreContract::retryNow)).hasSize(2);
    }

    /** After a claim whose answer was lost, its owner finds what it won, but never what recovery may be taking. */
    @Test
    void claimedByFindsAnOwnersUnstartedClaimsWithTheirLeaseAhead() {
        ClaimedTask wanted = claimOne(task("t", "k", T0, TaskStatus.QUEUED, 2), "a");
        ClaimedTask started = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        store.markStarted(List.of(started.claimId()), T0 + 1);
        long endingSoon = store.claimIds(List.of(insert(task("t", null, T0, TaskStatus.QUEUED, null))), T0,
                lease("a", T0 + 400)).get(0).id();
        claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "b");

        List<ClaimedTask> found = store.claimedBy("a", T0 + 500);

        assertThat(found).containsExactly(wanted);
        assertThat(found).extracting(ClaimedTask::id).doesNotContain(started.id(), endingSoon);
        assertThat(store.claimedBy("c", T0)).isEmpty();
    }

    // --- hand back --------------------------------------------------------------------------------------------

    @Test
    void aHandBackMakesUnstartedClaimsPendingAgainUncounted() {
        ClaimedTask toQueued = claimOne(task("t", null, T0, TaskStatus.SCHEDULED, null), "a");
        ClaimedTask toScheduled = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        ClaimedTask started = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a");
        store.markStarted(List.of(started.claimId()), T0 + 1);

        store.release(Map.of(toQueued.claimId(), TaskStatus.QUEUED, toScheduled.claimId(), TaskStatus.SCHEDULED,
                started.claimId(), TaskStatus.QUEUED), T0 + 2);

        assertThat(view(toQueued.id()).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(toScheduled.id()).status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(view(started.id()).status()).as("a started claim is not handed back")
            .isEqualTo(TaskStatus.RUNNING);
        assertThat(view(toQueued.id()).attempts()).isZero();
        assertThat(store.claimedBy("a", T0)).as("no longer a's").isEmpty();
        List<ClaimedTask> again = store.claimIds(List.of(toQueued.id(), toScheduled.id()), T0,
                lease("b", T0 + 30_000));
        assertThat(again).extracting(ClaimedTask::claim).containsOnly(2L);
        assertThat(again).extracting(ClaimedTask::attempt).containsOnly(1);
    }

    // --- migration and index rebuild --------------------------------------------------------------------------

    @Test
    void migrationMarksDueScheduledTasksQueuedEarliestFirst() {
        long later = insert(task("t", null, T0 + 200, TaskStatus.SCHEDULED, null));
        long first = insert(task("t", null, T0 + 100, TaskStatus.SCHEDULED, null));
        long beyond = insert(task("t", null, T0 + 300, TaskStatus.SCHEDULED, null));
        long queued = insert(task("t", null, T0, TaskStatus.QUEUED, null));

        List<DueTask> moved = store.migrate(T0 + 250, 10, T0 + 1);

        assertThat(moved).containsExactly(new DueTask(first, T0 + 100), new DueTask(later, T0 + 200));
        // committed when it returns: the caller indexes them without holding a row lock
        assertThat(view(first).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(later).updatedAt()).isEqualTo(Instant.ofEpochMilli(T0 + 1));
        assertThat(view(beyond).status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(view(queued).updatedAt()).isEqualTo(Instant.ofEpochMilli(T0));
        assertThat(store.migrate(T0 + 250, 10, T0 + 2)).isEmpty();
    }

    @Test
    void migrationTakesAtMostTheLimit() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(insert(task("t", null, T0 + i, TaskStatus.SCHEDULED, null)));
        }

        assertThat(store.migrate(T0 + 10, 2, T0)).extracting(DueTask::id).containsExactly(ids.get(0), ids.get(1));
        assertThat(view(ids.get(2)).status()).isEqualTo(TaskStatus.SCHEDULED);
    }

    @Test
    void pagesOfPendingTasksWalkOneStatusInDueTimeThenIdOrder() {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            tasks.add(task("t", null, T0 + i % 5, TaskStatus.QUEUED, null));
        }
        tasks.add(task("t", null, T0, TaskStatus.SCHEDULED, null));
        List<Long> queued = store.insert(tasks, T0).stream().limit(25).map(InsertedTask::id).toList();

        List<DueTask> walked = new ArrayList<>();
        DueTask after = new DueTask(0, Long.MIN_VALUE);
        List<DueTask> page;
        do {
            page = store.pending(TaskStatus.QUEUED, after, 7);
            walked.addAll(page);
            if (!page.isEmpty()) {
                after = page.get(page.size() - 1);
            }
        }
        while (page.size() == 7);

        assertThat(walked).extracting(DueTask::id).containsExactlyInAnyOrderElementsOf(queued);
        assertThat(walked).isSortedAccordingTo((a, b) -> a.dueAt() != b.dueAt() ? Long.compare(a.dueAt(), b.dueAt())
                : Long.compare(a.id(), b.id()));
    }

    @Test
    void pendingAmongNamesTheIdsThatAreStillPendingWithTheirDueTimes() {
        long scheduled = insert(task("t", null, T0 + 5, TaskStatus.SCHEDULED, null));
        long queued = insert(task("t", null, T0 + 6, TaskStatus.QUEUED, null));
        long running = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a").id();
        long cancelled = insert(task("t", null, T0, TaskStatus.QUEUED, null));
        store.cancel(cancelled, T0);

        assertThat(store.pendingAmong(List.of(scheduled, queued, running, cancelled, 999_999L)))
            .containsExactlyInAnyOrder(new DueTask(scheduled, T0 + 5), new DueTask(queued, T0 + 6));
        assertThat(store.pendingAmong(List.of())).isEmpty();
    }

    @Test
    void pendingAmongOfTypesNamesOnlyThoseOfTheTypes() {
        long a = insert(task("a", null, T0 + 5, TaskStatus.SCHEDULED, null));
        long b = insert(task("b", null, T0 + 6, TaskStatus.QUEUED, null));

        assertThat(store.pendingAmong(List.of(a, b), Set.of("b", "c"))).containsExactly(new DueTask(b, T0 + 6));
        assertThat(store.pendingAmong(List.of(a, b), Set.of())).isEmpty();
        assertThat(store.pendingAmong(List.of(), Set.of("a"))).isEmpty();
    }

    @Test
    void nextDueOfTypesIsTheEarliestDueTimeOfThoseTypes() {
        insert(task("other", null, T0 + 5, TaskStatus.SCHEDULED, null));
        insert(task("a", null, T0 + 50, TaskStatus.SCHEDULED, null));
        insert(task("b", null, T0 + 20, TaskStatus.SCHEDULED, null));

        assertThat(store.nextDue(TaskStatus.SCHEDULED, Set.of("a", "b"))).isEqualTo(OptionalLong.of(T0 + 20));
        assertThat(store.nextDue(TaskStatus.SCHEDULED, Set.of("c"))).isEmpty();
        assertThat(store.nextDue(TaskStatus.SCHEDULED, Set.of())).isEmpty();
    }

    /** The sweep's look: pending rows of some types due by a time, earliest first, left as they were. */
    @Test
    void pendingDueListsTheEarliestDueOfThoseTypesAndClaimsNothing() {
        insert(task("other", null, T0 - 50, TaskStatus.QUEUED, null));
        long a = insert(task("a", null, T0 - 10, TaskStatus.QUEUED, null));
        long b = insert(task("b", null, T0 - 30, TaskStatus.QUEUED, null));
        long later = insert(task("a", null, T0 - 5, TaskStatus.QUEUED, null));
        insert(task("a", null, T0 + 10, TaskStatus.QUEUED, null));
        insert(task("a", null, T0 - 40, TaskStatus.SCHEDULED, null));

        assertThat(store.pendingDue(TaskStatus.QUEUED, T0, 10, Set.of("a", "b")))
            .containsExactly(new DueTask(b, T0 - 30), new DueTask(a, T0 - 10), new DueTask(later, T0 - 5));
        assertThat(store.pendingDue(TaskStatus.QUEUED, T0, 2, Set.of("a", "b"))).extracting(DueTask::id)
            .containsExactly(b, a);
        assertThat(store.pendingDue(TaskStatus.QUEUED, T0, 10, Set.of("c"))).isEmpty();
        assertThat(store.pendingDue(TaskStatus.QUEUED, T0, 10, Set.of())).isEmpty();
        assertThat(store.pendingAmong(List.of(a, b, later))).as("still pending").hasSize(3);
    }

    /** A pause is shared by every instance on the store, once, until resumed. */
    @Test
    void aPausedTypeIsPausedForEveryInstanceUntilResumed() {
        TaskStore other = anotherInstance();
        assertThat(store.pause("contract.paused", T0)).isTrue();
        assertThat(other.pause("contract.paused", T0 + 1)).as("paused already").isFalse();
        assertThat(other.pausedTypes()).contains("contract.paused").doesNotContain("contract.other");

        assertThat(other.resume("contract.paused")).isTrue();
        assertThat(store.resume("contract.paused")).as("resumed already").isFalse();
        assertThat(store.pausedTypes()).doesNotContain("contract.paused");
    }

    /**
     * A cluster-wide limit of running tasks counts what every instance runs of the type under a live lease, in the
     * claim itself: a claim takes only what is left, says when the limit stopped it, and a finished task or a lease
     * run out (a dead instance's) gives its slot back.
     */
    @Test
    void aClusterLimitOfRunningTasksCountsTheLiveLeasesOfEveryInstance() {
        for (int i = 0; i < 6; i++) {
            insert(task("limited", null, T0 - 10 + i, TaskStatus.QUEUED, null));
        }
        insert(task("free", null, T0 - 20, TaskStatus.QUEUED, null));
        insert(task("free", null, T0 - 19, TaskStatus.QUEUED, null));
        Set<String> reached = new HashSet<>();
        ClaimLimits limits = new ClaimLimits(Map.of("limited", new TypeLimit(2, 0)), reached::add);
        Set<String> types = Set.of("limited", "free");

        List<ClaimedTask> first = store.claimDue(TaskStatus.QUEUED, T0, 10, types, limits, lease("a", T0 + 30_000));
        assertThat(first).extracting(ClaimedTask::type).containsExactlyInAnyOrder("free", "free", "limited", "limited");
        assertThat(first).filteredOn(task -> task.type().equals("limited")).extracting(ClaimedTask::dueAt)
            .as("the earliest due").containsExactlyInAnyOrder(T0 - 10, T0 - 9);
        assertThat(reached).containsExactly("limited");

        reached.clear();
        TaskStore other = anotherInstance();
        assertThat(other.claimDue(TaskStatus.QUEUED, T0, 10, types, limits, lease("b", T0 + 30_000)))
            .as("another instance while two run").isEmpty();
        assertThat(reached).containsExactly("limited");

        ClaimedTask done = first.stream().filter(task -> task.type().equals("limited")).findFirst().orElseThrow();
        store.finish(List.of(new Completion.Succeeded(done.id(), done.claim())), T0 + 5);
        reached.clear();
        assertThat(other.claimDue(TaskStatus.QUEUED, T0, 10, types, limits, lease("b", T0 + 30_000)))
            .as("one slot given back by a finished task").hasSize(1);
        assertThat(reached).containsExactly("limited");

        reached.clear();
        Lease afterTheLeases = new Lease("c", T0 + 60_000, T0 + 30_000);
        assertThat(other.claimDue(TaskStatus.QUEUED, T0 + 30_000, 10, types, limits, afterTheLeases))
            .as("the slots of leases run out").hasSize(2);
        assertThat(store.claimDue(TaskStatus.QUEUED, T0 + 30_000, 1, types, ClaimLimits.none(), afterTheLeases))
            .as("no limits, no limit").hasSize(1);
    }

    /**
     * Instances claiming a limited type at once never hold more than its limit between them: the count and the claim
     * are one step. Each claimer counts what it holds before its claim returns and stops counting a task before it
     * finishes it, so the count here is never above what the store counts.
     */
    @Test
    void concurrentClaimersNeverHoldMoreThanTheClusterLimitBetweenThem() throws Exception {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 240; i++) {
            tasks.add(task("limited", null, T0 - i % 11, TaskStatus.SCHEDULED, null));
        }
        store.insert(tasks, T0);
        ClaimLimits limits = new ClaimLimits(Map.of("limited", new TypeLimit(3, 0)), type -> {
        });
        AtomicInteger held = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Callable<Void>> claimers = new ArrayList<>();
            for (int c = 0; c < 6; c++) {
                TaskStore instance = anotherInstance();
                Lease lease = lease("owner-" + c, T0 + 60_000);
                claimers.add(() -> {
                    while (finished.get() < tasks.size()) {
                        List<ClaimedTask> claimed = instance.claimDue(TaskStatus.SCHEDULED, T0, 2, Set.of("limited"),
                                limits, lease);
                        most.accumulateAndGet(held.addAndGet(claimed.size()), Math::max);
                        Thread.sleep(claimed.isEmpty() ? 1 : 3);
                        held.addAndGet(-claimed.size());
                        instance.finish(claimed.stream()
                            .map(task -> (Completion) new Completion.Succeeded(task.id(), task.claim()))
                            .toList(), T0 + 1);
                        finished.addAndGet(claimed.size());
                    }
                    return null;
                });
            }
            for (Future<Void> claimer : pool.invokeAll(claimers, 120, TimeUnit.SECONDS)) {
                claimer.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(finished.get()).as("every task claimed once").isEqualTo(tasks.size());
        assertThat(most.get()).as("most held at once across instances").isLessThanOrEqualTo(3).isGreaterThan(1);
    }

    /** A limit of starts per second counts what the claims of every instance took of the type in that second. */
    @Test
    void aClusterLimitOfStartsPerSecondCountsTheClaimsOfEveryInstanceInTheSecond() {
        List<Long> paced = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            paced.add(insert(task("paced", null, T0 - 10 + i, TaskStatus.SCHEDULED, null)));
        }
        Set<String> reached = new HashSet<>();
        ClaimLimits limits = new ClaimLimits(Map.of("paced", new TypeLimit(0, 3)), reached::add);
        Set<String> types = Set.of("paced");
        long second = T0 - Math.floorMod(T0, 1_000);

        assertThat(store.claimDue(TaskStatus.SCHEDULED, T0, 2, types, limits, new Lease("a", T0 + 30_000, second)))
            .hasSize(2);
        assertThat(reached).as("stopped by the claim's own size, not the limit").isEmpty();
        TaskStore other = anotherInstance();
        assertThat(other.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits,
                new Lease("b", T0 + 30_000, second + 999))).as("what is left of the second").hasSize(1);
        assertThat(reached).containsExactly("paced");
        assertThat(other.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits,
                new Lease("b", T0 + 30_000, second + 999))).isEmpty();
        assertThat(store.claimIds(paced, T0, types, limits,
                new Lease("a", T0 + 30_000, second + 500))).as("by id too").isEmpty();
        assertThat(store.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits,
                new Lease("a", T0 + 30_000, second + 1_000))).as("the next second").hasSize(3);
    }

    /**
     * A claim whose clock reads an earlier second than the one the type's starts were last counted in (another
     * instance's clock a little ahead, or a time read before another claim committed) counts in that later second: it
     * must not start the earlier second afresh, which let claims that alternate across a second's boundary take the
     * limit each in turn.
     */
    @Test
    void aClaimWhoseClockIsBehindCountsInTheLatestSecondAnyClaimCountedIn() {
        List<Long> paced = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            paced.add(insert(task("paced", null, T0 - 10 + i, TaskStatus.SCHEDULED, null)));
        }
        ClaimLimits limits = new ClaimLimits(Map.of("paced", new TypeLimit(0, 3)), type -> {
        });
        Set<String> types = Set.of("paced");
        long next = T0 - Math.floorMod(T0, 1_000) + 1_000;
        TaskStore behind = anotherInstance();

        assertThat(store.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits, new Lease("a", T0 + 30_000, next)))
            .hasSize(3);
        assertThat(behind.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits,
                new Lease("b", T0 + 30_000, next - 1))).as("a clock 1 ms behind, in the second before").isEmpty();
        assertThat(behind.claimIds(paced, T0, types, limits, new Lease("b", T0 + 30_000, next - 1)))
            .as("by id too").isEmpty();
        assertThat(store.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits, new Lease("a", T0 + 30_000, next + 1)))
            .as("the later second, after the clock behind tried").isEmpty();
        assertThat(behind.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits,
                new Lease("b", T0 + 30_000, next + 1_000))).as("the second after").hasSize(3);
    }

    /** But a clock far ahead is taken as wrong: the claims of the others go on in their own seconds. */
    @Test
    void aClaimFarBehindTheLastCountedSecondCountsInItsOwn() {
        for (int i = 0; i < 10; i++) {
            insert(task("paced", null, T0 - 10 + i, TaskStatus.SCHEDULED, null));
        }
        ClaimLimits limits = new ClaimLimits(Map.of("paced", new TypeLimit(0, 3)), type -> {
        });
        Set<String> types = Set.of("paced");
        long ahead = T0 + TypeLimit.LONGEST_LEAD_MILLIS + 1_000;

        assertThat(store.claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits, new Lease("a", ahead + 30_000, ahead)))
            .hasSize(3);
        assertThat(anotherInstance().claimDue(TaskStatus.SCHEDULED, T0, 10, types, limits,
                new Lease("b", T0 + 30_000, T0))).as("a clock more than the longest lead behind").hasSize(3);
    }

    /**
     * Four instances whose clocks are up to 120 ms apart claim a backlog of a type limited to 3 starts a second, all
     * at once every 20 ms of three seconds: the seconds the leading clock reaches (four) get 3 starts each, no more.
     */
    @Test
    void instancesWhoseClocksDifferClaimNoMoreThanTheLimitOfStartsPerSecond() throws Exception {
        for (int i = 0; i < 40; i++) {
            insert(task("paced", null, T0 - 40 + i, TaskStatus.SCHEDULED, null));
        }
        ClaimLimits limits = new ClaimLimits(Map.of("paced", new TypeLimit(0, 3)), type -> {
        });
        List<TaskStore> instances = List.of(store, anotherInstance(), anotherInstance(), anotherInstance());
        AtomicInteger claimed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(instances.size());
        try {
            for (long at = T0; at < T0 + 3_000; at += 20) {
                List<Callable<Void>> claims = new ArrayList<>();
                for (int i = 0; i < instances.size(); i++) {
                    TaskStore instance = instances.get(i);
                    String owner = "i" + i;
                    long now = at + 40L * i;
                    claims.add(() -> {
                        claimed.addAndGet(instance.claimDue(TaskStatus.SCHEDULED, now, 10, Set.of("paced"), limits,
                                new Lease(owner, now + 30_000, now)).size());
                        return null;
                    });
                }
                for (Future<Void> claim : pool.invokeAll(claims, 30, TimeUnit.SECONDS)) {
                    claim.get();
                }
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(claimed.get()).as("started over the seconds T0 to T0 + 3 s, at 3 a second").isBetween(9, 12);
    }

    /** Popped ids of a limited type beyond its room stay pending, the earliest due claimed first. */
    @Test
    void aClaimOfIdsTakesOfALimitedTypeTheEarliestDueItsLimitLeaves() {
        long late = insert(task("limited", null, T0 - 1, TaskStatus.QUEUED, null));
        long early = insert(task("limited", null, T0 - 9, TaskStatus.QUEUED, null));
        long middle = insert(task("limited", null, T0 - 5, TaskStatus.QUEUED, null));
        long free = insert(task("free", null, T0 - 2, TaskStatus.QUEUED, null));
        Set<String> reached = new HashSet<>();
        ClaimLimits limits = new ClaimLimits(Map.of("limited", new TypeLimit(1, 0)), reached::add);

        assertThat(store.claimIds(List.of(late, early, middle, free), T0, Set.of("limited", "free"), limits,
                lease("a", T0 + 30_000))).extracting(ClaimedTask::id).containsExactlyInAnyOrder(early, free);
        assertThat(reached).containsExactly("limited");
        assertThat(view(late).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(middle).status()).isEqualTo(TaskStatus.QUEUED);
    }

    @Test
    void nextDueIsTheEarliestDueTimeOfAStatus() {
        assertThat(store.nextDue(TaskStatus.SCHEDULED)).isEmpty();
        insert(task("t", null, T0 + 50, TaskStatus.SCHEDULED, null));
        insert(task("t", null, T0 + 20, TaskStatus.SCHEDULED, null));
        insert(task("t", null, T0 + 10, TaskStatus.QUEUED, null));

        assertThat(store.nextDue(TaskStatus.SCHEDULED)).isEqualTo(OptionalLong.of(T0 + 20));
        assertThat(store.nextDue(TaskStatus.QUEUED)).isEqualTo(OptionalLong.of(T0 + 10));
    }

    // --- user operations --------------------------------------------------------------------------------------

    @Test
    void cancelStopsAPendingTaskAndNothingElse() {
        long scheduled = insert(task("s", null, T0, TaskStatus.SCHEDULED, null));
        long queued = insert(task("q", "k", T0, TaskStatus.QUEUED, null));
        long running = claimOne(task("r", "running", T0, TaskStatus.QUEUED, null), "a").id();

        assertThat(store.cancel(scheduled, T0 + 1)).contains("s");
        assertThat(store.cancel("q", "k", T0 + 2)).isEqualTo(OptionalLong.of(queued));
        assertThat(store.cancel(running, T0 + 3)).isEmpty();
        assertThat(store.cancel("r", "running", T0 + 3)).isEmpty();
        assertThat(store.cancel(scheduled, T0 + 4)).as("cancelled already").isEmpty();
        assertThat(store.cancel(999_999L, T0)).isEmpty();
        assertThat(store.cancel("q", "unknown", T0)).isEmpty();

        assertThat(view(scheduled).status()).isEqualTo(TaskStatus.CANCELLED);
        assertThat(view(scheduled).updatedAt()).isEqualTo(Instant.ofEpochMilli(T0 + 1));
        assertThat(view(queued).status()).isEqualTo(TaskStatus.CANCELLED);
        assertThat(view(running).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(store.claimIds(List.of(scheduled, queued), T0 + 10, lease("a", T0 + 30_000))).isEmpty();
    }

    @Test
    void rescheduleMovesAPendingTaskAndNothingElse() {
        long pending = insert(task("t", null, T0 + 1_000, TaskStatus.SCHEDULED, null));
        long running = claimOne(task("t", null, T0, TaskStatus.QUEUED, null), "a").id();

        assertThat(store.reschedule(pending, T0 + 10, TaskStatus.QUEUED, T0 + 1)).isTrue();
        assertThat(store.reschedule(running, T0 + 10, TaskStatus.QUEUED, T0 + 1)).isFalse();
        assertThat(store.reschedule(999_999L, T0 + 10, TaskStatus.QUEUED, T0 + 1)).isFalse();

        assertThat(view(pending).dueAt()).isEqualTo(Instant.ofEpochMilli(T0 + 10));
        assertThat(view(pending).status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(view(running).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(store.find(999_999L)).isEmpty();
        assertThat(store.find("t", "unknown")).isEmpty();
    }

    // --- purge and clock --------------------------------------------------------------------------------------

    @Test
    void thePurgeDeletesTheRowsOfEachStatusThatChangedBeforeItsCutoff() {
        long oldSuccess = finished(TaskStatus.SUCCEEDED, T0);
        long newSuccess = finished(TaskStatus.SUCCEEDED, T0 + 60_000);
        long oldFailure = finished(TaskStatus.FAILED, T0);
        long farAhead = insert(task("t", null, T0 + 86_400_000L * 30, TaskStatus.SCHEDULED, null));
        store.cancel(farAhead, T0); // purged by when it was cancelled, not by its due time
        long pending = insert(task("t", null, T0 - 86_400_000L, TaskStatus.SCHEDULED, null));

        long deleted = store.purge(Map.of(TaskStatus.SUCCEEDED, T0 + 1, TaskStatus.CANCELLED, T0 + 1), 100, 10_000);

        assertThat(deleted).isEqualTo(2);
        assertThat(store.find(oldSuccess)).isEmpty();
        assertThat(store.find(farAhead)).isEmpty();
        assertThat(store.find(newSuccess)).isPresent();
        assertThat(store.find(oldFailure)).as("no cutoff for FAILED: kept").isPresent();
        assertThat(store.find(pending)).isPresent();
    }

    @Test
    void thePurgeDeletesInStatementsOfTheBatchSizeUntilNoneIsLeft() {
        for (int i = 0; i < 25; i++) {
            finished(TaskStatus.SUCCEEDED, T0 + i);
        }
        long kept = finished(TaskStatus.SUCCEEDED, T0 + 100);

        assertThat(store.purge(Map.of(TaskStatus.SUCCEEDED, T0 + 100), 10, 60_000)).isEqualTo(25);
        assertThat(store.find(kept)).isPresent();
    }

    @Test
    void oneInstancePurgesAtATime() throws Exception {
        long old = finished(TaskStatus.SUCCEEDED, T0);
        try (AutoCloseable elsewhere = purgeElsewhere()) {
            assertThat(store.purge(Map.of(TaskStatus.SUCCEEDED, T0 + 1), 100, 1_000)).isEqualTo(-1);
        }
        assertThat(store.find(old)).isPresent();
        assertThat(store.purge(Map.of(TaskStatus.SUCCEEDED, T0 + 1), 100, 1_000)).isEqualTo(1);
    }

    @Test
    void theStoresClockIsTheOneTheInstancesAlignTo() {
        long expected = expectedStoreTime();
        long micros = store.currentTimeMicros();
        long millis = store.currentTimeMillis();

        assertThat(millis).isBetween(expected - 2_000, expected + 2_000);
        assertThat(millis - Math.floorDiv(micros, 1000)).isBetween(0L, 1_000L);
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    /** Transactions of no resource: begin, commit and rollback run the synchronizations alone. */
    private static final class SynchronizationsOnly extends AbstractPlatformTransactionManager {

        private static final long serialVersionUID = 1L;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }

    protected static NewTask task(String type, String key, long dueAt, TaskStatus status, Integer maxAttempts) {
        return new NewTask(type, key, "\"p\"", dueAt, status, maxAttempts);
    }

    private static NewTask traced(String traceContext) {
        return new NewTask("t", null, "\"p\"", T0, TaskStatus.QUEUED, null, KeyMode.KEEP, NewTask.NO_MAX_DELAY,
                Long.MIN_VALUE, traceContext);
    }

    protected long insert(NewTask task) {
        return store.insert(List.of(task), T0).get(0).id();
    }

    protected static Lease lease(String owner, long until) {
        return new Lease(owner, until, T0);
    }

    /** Inserts the task and claims it for {@code owner} with a lease to {@code T0 + 30 s}. */
    private ClaimedTask claimOne(NewTask task, String owner) {
        List<ClaimedTask> claimed = store.claimIds(List.of(insert(task)), task.dueAt(), lease(owner, T0 + 30_000));
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    /** A task that ended in {@code status} at {@code at}. */
    private long finished(TaskStatus status, long at) {
        long id = insert(task("t", null, T0, TaskStatus.QUEUED, null));
        ClaimedTask claimed = store.claimIds(List.of(id), at, new Lease("a", at + 30_000, at)).get(0);
        store.markStarted(List.of(claimed.claimId()), at);
        store.finish(List.of(status == TaskStatus.SUCCEEDED ? new Completion.Succeeded(claimed.id(), claimed.claim())
                : new Completion.Failed(claimed.id(), claimed.claim(), 1, "failed")), at);
        return claimed.id();
    }

    private static Completion retryNow(ExpiredLease expired) {
        return new Completion.Retry(expired.id(), expired.claim(), TaskStatus.QUEUED, T0, expired.attempts(),
                "lease expired");
    }

    private TaskView view(long id) {
        return store.find(id).orElseThrow(() -> new AssertionError("no task " + id));
    }
}
