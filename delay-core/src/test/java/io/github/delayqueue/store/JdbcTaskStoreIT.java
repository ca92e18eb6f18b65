package io.github.delayqueue.store;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.api.TaskStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The compare-and-set rules of the task table, under real concurrency on the real database. */
class JdbcTaskStoreIT {

    private static HikariDataSource dataSource;

    private static JdbcTaskStore store;

    private static JdbcTemplate jdbc;

    private static long now = System.currentTimeMillis();

    @BeforeAll
    static void createTable() {
        dataSource = TaskTablePool.create();
        store = new JdbcTaskStore(dataSource, "delay_task");
        jdbc = new JdbcTemplate(dataSource);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    private static List<Long> insert(int count, String type, long dueAt) {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(new NewTask(type, null, "\"p\"", dueAt, TaskStatus.SCHEDULED, null));
        }
        return store.insert(tasks, now).stream().map(InsertedTask::id).toList();
    }

    private static Lease claim(String owner) {
        return new Lease(owner, now + 30_000, now);
    }

    /**
     * A claim that stalls while it holds a limited type's row (its process frozen, its connection cut off) holds up
     * no other claim: the others leave that type out of their round, at once, and take the rest.
     */
    @Test
    void aClaimSkipsALimitedTypeWhoseRowAnotherClaimHoldsAndTakesTheRest() throws Exception {
        insert(3, "held.limited", now - 1_000);
        insert(2, "held.free", now - 1_000);
        Set<String> reached = new HashSet<>();
        ClaimLimits limits = new ClaimLimits(Map.of("held.limited", new TypeLimit(5, 0)), reached::add);
        Set<String> types = Set.of("held.limited", "held.free");
        jdbc.update("INSERT IGNORE INTO delay_task_type_limits (task_type, window_start, window_starts) "
                + "VALUES ('held.limited', 0, 0)");
        try (java.sql.Connection stalled = dataSource.getConnection()) {
            stalled.setAutoCommit(false);
            try (var lock = stalled.prepareStatement(
                    "SELECT * FROM delay_task_type_limits WHERE task_type = 'held.limited' FOR UPDATE")) {
                lock.executeQuery().close();
            }
            List<ClaimedTask> claimed = store.claimDue(TaskStatus.SCHEDULED, now, 10, types, limits, claim("b"));
            assertThat(claimed).extracting(ClaimedTask::type).containsExactly("held.free", "held.free");
            assertThat(reached).as("left out until the recheck: another claim's turn, not none left")
                .containsExactly("held.limited");
            stalled.rollback();
        }
        assertThat(store.claimDue(TaskStatus.SCHEDULED, now, 10, types, limits, claim("b"))).hasSize(3);
    }

    @Test
    void cancelAndClaimRacingForOneTaskHaveExactlyOneWinner() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 100; round++) {
                long id = insert(1, "race", now - 1).get(0);
                CountDownLatch go = new CountDownLatch(1);
                Future<List<ClaimedTask>> claimed = pool.submit(() -> {
                    go.await();
                    return store.claimIds(List.of(id), now, claim("claimer"));
                });
                Future<Optional<String>> cancelled = pool.submit(() -> {
                    go.await();
                    return store.cancel(id, now);
                });
                go.countDown();
                boolean claimWon = !claimed.get().isEmpty();
                boolean cancelWon = cancelled.get().isPresent();
                assertThat(claimWon ^ cancelWon).as("round %d: claim %s, cancel %s", round, claimWon, cancelWon)
                    .isTrue();
                String status = jdbc.queryForObject("SELECT status FROM delay_task WHERE id = ?", String.class, id);
                assertThat(status).isEqualTo(claimWon ? "RUNNING" : "CANCELLED");
            }
        }
        finally {
            pool.shutdown();
        }
    }

    /**
     * A claim the database rolls back to break a deadlock is claimed again at once, not failed: here another
     * transaction, heavier (so InnoDB picks the claim as the victim), holds the gap the claim's new index entry goes
     * into, then asks for the row the claim has locked.
     */
    @Test
    void aClaimChosenAsADeadlocksVictimIsClaimedAgain() throws Exception {
        long due = now - 7;
        long id = insert(1, "deadlock.claimed", due).get(0);
        // a running task due later bounds the held range, so the claim's row itself is not locked (it would be skipped)
        store.claimIds(insert(1, "deadlock.bound", due + 1_000), due + 1_000, claim("bound"));
        List<Long> heavy = insert(200, "deadlock.heavy", now + 600_000);
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            other.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (var weight = other.createStatement()) {
                weight.executeUpdate("UPDATE delay_task SET updated_at = updated_at + 1 WHERE id BETWEEN "
                        + heavy.get(0) + " AND " + heavy.get(heavy.size() - 1));
                weight.executeQuery("SELECT id FROM delay_task FORCE INDEX (delay_task_status_due) "
                        + "WHERE status = 'RUNNING' AND due_at BETWEEN " + (due - 1) + " AND " + (due + 1)
                        + " FOR UPDATE").close();
            }
            Future<List<ClaimedTask>> claimed = threads.submit(() -> store.claimIds(List.of(id), now, claim("v")));
            awaitLockWait();
            try (var cycle = other.createStatement()) {
                cycle.executeUpdate("UPDATE delay_task SET updated_at = updated_at + 1 WHERE id = " + id);
            }
            assertThat(claimed.get(30, TimeUnit.SECONDS)).as("claimed again: the row is the other's now, skipped")
                .isEmpty();
            other.rollback();
        }
        finally {
            threads.shutdownNow();
        }
        assertThat(store.claimIds(List.of(id), now, claim("v"))).extracting(ClaimedTask::id).containsExactly(id);
    }

    /**
     * Waits until a transaction of the database waits for a lock: the claim, at its insert into the held gap. Asked
     * every 200 ms: InnoDB refreshes what it shows of its transactions only when it was not read for 100 ms.
     */
    private static void awaitLockWait() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
                Integer.class) == 0) {
            assertThat(System.nanoTime() - until).as("the claim waits for the held gap").isNegative();
            Thread.sleep(200);
        }
    }

    @Test
    void concurrentClaimersTakeDisjointRowsAndTogetherTakeAll() throws Exception {
        Set<Long> ids = new HashSet<>(insert(2000, "disjoint", now - 10));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<List<Long>>> claimers = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                String owner = "owner-" + c;
                JdbcTaskStore instance = new JdbcTaskStore(dataSource, "delay_task"); // one per instance, as in life
                claimers.add(() -> {
                    List<Long> mine = new ArrayList<>();
                    List<ClaimedTask> batch;
                    do {
                        batch = instance.claimDue(TaskStatus.SCHEDULED, now, 50, claim(owner));
                        batch.stream().filter(t -> t.type().equals("disjoint")).forEach(t -> mine.add(t.id()));
                    }
                    while (!batch.isEmpty());
                    return mine;
                });
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> result : pool.invokeAll(claimers)) {
                all.addAll(result.get());
            }
            assertThat(all).doesNotHaveDuplicates();
            assertThat(new HashSet<>(all)).isEqualTo(ids);
        }
        finally {
            pool.shutdown();
        }
    }

    @Test
    void finishingOnlyTouchesTheClaimsStillHeld() {
        List<Long> ids = insert(3, "finish", now - 1);
        List<ClaimedTask> claimed = store.claimIds(ids, now, claim("a"));
        // ids[0]'s lease ran out, and another instance recovered and claimed it again meanwhile
        jdbc.update("UPDATE delay_task SET owner = 'b', claims = claims + 1 WHERE id = ?", ids.get(0));

        store.finish(List.of(new Completion.Succeeded(ids.get(0), claimed.get(0).claim()),
                new Completion.Succeeded(ids.get(1), claimed.get(1).claim()),
                new Completion.Failed(ids.get(2), claimed.get(2).claim(), 1, "x".repeat(5000))), now);

        assertThat(status(ids.get(0))).isEqualTo("RUNNING");
        assertThat(status(ids.get(1))).isEqualTo("SUCCEEDED");
        assertThat(status(ids.get(2))).isEqualTo("FAILED");
        assertThat(jdbc.queryForObject("SELECT CHAR_LENGTH(last_error) FROM delay_task WHERE id = ?", Integer.class,
                ids.get(2))).isEqualTo(TaskTable.MAX_ERROR_LENGTH);
        assertThat(attempts(ids.get(1))).as("a success counts its attempt").isEqualTo(1);
    }

    @Test
    void anAttemptCountsWhenItsHandlerStartsNotWhenItIsClaimed() {
        List<Long> ids = insert(2, "start", now - 1);
        List<ClaimedTask> claimed = store.claimIds(ids, now, claim("a"));
        assertThat(claimed).extracting(ClaimedTask::attempt).containsOnly(1);
        assertThat(claimed).extracting(ClaimedTask::claim).containsOnly(1L);
        assertThat(attempts(ids.get(0))).isZero();

        store.markStarted(List.of(claimed.get(0).claimId()), now);
        store.markStarted(List.of(claimed.get(0).claimId()), now); // a retried write counts once
        store.finish(List.of(new Completion.Succeeded(ids.get(0), 1)), now);

        assertThat(attempts(ids.get(0))).isEqualTo(1);
        assertThat(attempts(ids.get(1))).isZero();
    }

    @Test
    void releaseHandsBackUnstartedClaimsUncounted() {
        List<Long> ids = insert(3, "release", now - 1);
        List<ClaimedTask> claimed = store.claimIds(ids, now, claim("a"));
        store.markStarted(List.of(claimed.get(2).claimId()), now);

        store.release(Map.of(claimed.get(0).claimId(), TaskStatus.QUEUED, claimed.get(1).claimId(),
                TaskStatus.SCHEDULED, claimed.get(2).claimId(), TaskStatus.QUEUED), now);

        assertThat(status(ids.get(0))).isEqualTo("QUEUED");
        assertThat(status(ids.get(1))).isEqualTo("SCHEDULED");
        assertThat(status(ids.get(2))).as("a started claim is not handed back").isEqualTo("RUNNING");
        assertThat(jdbc.queryForList("SELECT attempts FROM delay_task WHERE id IN (?, ?)", Integer.class, ids.get(0),
                ids.get(1))).containsOnly(0);
        assertThat(jdbc.queryForList("SELECT owner FROM delay_task WHERE id IN (?, ?)", String.class, ids.get(0),
                ids.get(1))).containsOnlyNulls();
        List<ClaimedTask> again = store.claimIds(ids.subList(0, 2), now, claim("b"));
        assertThat(again).extracting(ClaimedTask::claim).containsOnly(2L);
        assertThat(again).extracting(ClaimedTask::attempt).containsOnly(1);
    }

    @Test
    void leasesAreExtendedOnlyForClaimsStillHeldAndExpiredOnesAreRecovered() {
        List<Long> ids = insert(3, "lease", now - 1);
        List<ClaimedTask> claimed = store.claimIds(ids, now, new Lease("a", now + 1000, now));
        List<ClaimId> claims = claimed.stream().map(ClaimedTask::claimId).toList();
        assertThat(store.extendLeases(claims, now + 60_000)).containsExactlyInAnyOrderElementsOf(claims);
        // ids[2] was taken over by another instance: its claim number moved on
        jdbc.update("UPDATE delay_task SET owner = 'b', claims = claims + 1 WHERE id = ?", ids.get(2));
        assertThat(store.extendLeases(claims, now + 60_000)).containsExactlyInAnyOrder(claims.get(0),
                claims.get(1));

        store.markStarted(List.of(claims.get(1)), now);
        jdbc.update("UPDATE delay_task SET lease_until = ? WHERE id IN (?, ?)", now - 5, ids.get(0), ids.get(1));
        List<ExpiredLease> seen = new ArrayList<>();
        List<Completion> recovered = store.recoverExpiredLeases(now, 100, lease -> {
            seen.add(lease);
            return new Completion.Retry(lease.id(), lease.claim(), TaskStatus.SCHEDULED, lease.dueAt(),
                    lease.attempts(), "lease expired");
        });

        assertThat(seen).extracting(ExpiredLease::id).containsExactlyInAnyOrder(ids.get(0), ids.get(1));
        assertThat(seen).filteredOn(l -> l.id() == ids.get(0)).singleElement()
            .satisfies(l -> assertThat(l.started()).isFalse());
        assertThat(seen).filteredOn(l -> l.id() == ids.get(1)).singleElement()
            .satisfies(l -> assertThat(l.started()).isTrue())
            .satisfies(l -> assertThat(l.attempts()).isEqualTo(1));
        assertThat(seen.get(0).owner()).isEqualTo("a");
        assertThat(recovered).hasSize(2);
        assertThat(status(ids.get(0))).isEqualTo("SCHEDULED");
        assertThat(status(ids.get(1))).isEqualTo("SCHEDULED");
        assertThat(status(ids.get(2))).isEqualTo("RUNNING");
    }

    @Test
    void largePayloadsAreSplitIntoSeveralStatements() {
        String big = "\"" + "x".repeat(600_000) + "\"";
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            tasks.add(new NewTask("big", i % 2 == 0 ? null : "key-" + i, big, now + 60_000, TaskStatus.SCHEDULED, 2));
        }
        List<InsertedTask> inserted = store.insert(tasks, now);

        assertThat(inserted).extracting(InsertedTask::id).doesNotHaveDuplicates().hasSize(12);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'big' "
                + "AND CHAR_LENGTH(payload) = 600002 AND max_attempts = 2", Integer.class)).isEqualTo(12);
    }

    @Test
    void pendingPagesWalkTheQueuedRowsInDueOrder() {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            tasks.add(new NewTask("page", null, "1", now + 500_000 + (i % 5), TaskStatus.QUEUED, null));
        }
        Set<Long> ids = new HashSet<>(store.insert(tasks, now).stream().map(InsertedTask::id).toList());
        Set<Long> seen = new HashSet<>();
        DueTask after = new DueTask(0, now + 499_999);
        List<DueTask> page;
        do {
            page = store.pending(TaskStatus.QUEUED, after, 7);
            page.forEach(t -> seen.add(t.id()));
            if (!page.isEmpty()) {
                after = page.get(page.size() - 1);
            }
        }
        while (page.size() == 7);
        assertThat(seen).containsAll(ids);
    }

    @Test
    void purgeDeletesOnlyOldRowsOfTheStatusAndOneInstanceAtATime() throws Exception {
        List<Long> ids = insert(4, "purge", now - 1);
        jdbc.update("UPDATE delay_task SET status = 'SUCCEEDED', updated_at = ? WHERE id IN (?, ?)", now - 100_000,
                ids.get(0), ids.get(1));
        jdbc.update("UPDATE delay_task SET updated_at = ? WHERE id = ?", now, ids.get(1));
        // a cancelled task due far ahead is purged by when it was cancelled, not by its due time
        jdbc.update("UPDATE delay_task SET status = 'CANCELLED', due_at = ?, updated_at = ? WHERE id = ?",
                now + 86_400_000L * 30, now - 100_000, ids.get(3));

        try (java.sql.Connection holder = dataSource.getConnection()) {
            assertThat(NamedLock.acquire(holder, NamedLock.name("delay_purge", holder.getCatalog(), "`delay_task`"), 0))
                .isTrue();
            assertThat(store.purge(Map.of(TaskStatus.SUCCEEDED, now - 50_000), 100, 1_000))
                .as("another instance purges").isEqualTo(-1);
        }
        assertThat(store.purge(Map.of(TaskStatus.SUCCEEDED, now - 50_000, TaskStatus.CANCELLED, now - 50_000), 100,
                1_000)).isEqualTo(2);
        assertThat(store.find(ids.get(0))).isEmpty();
        assertThat(store.find(ids.get(1))).isPresent();
        assertThat(store.find(ids.get(2))).isPresent();
        assertThat(store.find(ids.get(3))).isEmpty();
    }

    /**
     * A keyed task scheduled outside a transaction costs one statement, the insert, when its key is free: no look-up
     * goes first (the insert's unique key guards the key; a failed autocommitted insert holds no lock afterwards). A
     * key that is taken is found all the same, and reported as not created.
     */
    @Test
    void aKeyedInsertOutsideATransactionIsOneStatementWhenItsKeyIsFree() {
        AtomicInteger statements = new AtomicInteger();
        DataSource counting = counting(statements);
        JdbcTaskStore onCounting = new JdbcTaskStore(counting, "delay_task");
        try {
            onCounting.insert(List.of(new NewTask("one-trip", null, "\"p\"", now + 60_000, TaskStatus.SCHEDULED,
                    null)), now); // the first insert reads how ids come back, once
            statements.set(0);

            InsertedTask created = onCounting.insert(List.of(new NewTask("one-trip", "k", "\"p\"", now + 60_000,
                    TaskStatus.SCHEDULED, null)), now).get(0);
            assertThat(statements).as("statements of a keyed insert whose key is free").hasValue(1);
            assertThat(created.created()).isTrue();

            InsertedTask again = onCounting.insert(List.of(new NewTask("one-trip", "k", "\"q\"", now + 90_000,
                    TaskStatus.SCHEDULED, null)), now).get(0);
            assertThat(again.created()).as("the key was taken").isFalse();
            assertThat(again.id()).isEqualTo(created.id());
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'one-trip' AND "
                    + "task_key = 'k'", Integer.class)).isEqualTo(1);
        }
        finally {
            onCounting.close();
        }
    }

    /**
     * Inside the caller's transaction too, a keyed task whose key is free costs one statement, the insert (issue 19:
     * the look-up that went first was a second round trip on every call). A key that is taken is found all the same.
     */
    @Test
    void aKeyedInsertInACallerTransactionIsOneStatementWhenItsKeyIsFree() {
        AtomicInteger statements = new AtomicInteger();
        DataSource counting = counting(statements);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(counting));
        JdbcTaskStore onCounting = new JdbcTaskStore(counting, "delay_task");
        try {
            transaction.executeWithoutResult(tx -> onCounting.insert(List.of(new NewTask("tx-trip", null, "\"p\"",
                    now + 60_000, TaskStatus.SCHEDULED, null)), now)); // the first insert reads how ids come back
            statements.set(0);

            InsertedTask created = transaction.execute(tx -> onCounting.insert(List.of(new NewTask("tx-trip", "k",
                    "\"p\"", now + 60_000, TaskStatus.SCHEDULED, null)), now).get(0));
            assertThat(statements).as("statements of a keyed insert whose key is free, in a transaction").hasValue(1);
            assertThat(created.created()).isTrue();

            InsertedTask again = transaction.execute(tx -> onCounting.insert(List.of(new NewTask("tx-trip", "k",
                    "\"q\"", now + 90_000, TaskStatus.SCHEDULED, null)), now).get(0));
            assertThat(again.created()).as("the key was taken").isFalse();
            assertThat(again.id()).isEqualTo(created.id());
            assertThat(again.dueAt()).as("the holder's due time").isEqualTo(now + 60_000);
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'tx-trip' AND "
                    + "task_key = 'k'", Integer.class)).isEqualTo(1);
        }
        finally {
            onCounting.close();
        }
    }

    /**
     * What a caller's transaction holds after scheduling a key that a running task holds, now that the insert goes
     * first (the price of the one round trip above): only the failed insert's shared lock on the key's index entry.
     * The task's lease renewals and its retry go on meanwhile; its completion, which releases the key, waits for the
     * caller's commit and then lands. (Read with the locking read that follows a failed autocommitted insert, the row
     * itself would stay locked, and the renewal would wait for the caller too.)
     */
    @Test
    void aKeyFoundTakenInACallerTransactionLeavesTheRunningTasksLeaseAndRetryFree() throws Exception {
        long id = store.insert(List.of(new NewTask("held.key", "k", "\"p\"", now - 1, TaskStatus.SCHEDULED, null)),
                now).get(0).id();
        ClaimId claim = store.claimIds(List.of(id), now, claim("a")).get(0).claimId();
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        CountDownLatch found = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<InsertedTask> caller = threads.submit(() -> transaction.execute(tx -> {
                InsertedTask kept = store.insert(List.of(new NewTask("held.key", "k", "\"q\"", now + 60_000,
                        TaskStatus.SCHEDULED, null)), now).get(0);
                found.countDown();
                await(end); // the caller's transaction goes on
                return kept;
            }));
            assertThat(found.await(10, TimeUnit.SECONDS)).as("the caller's insert answered").isTrue();

            Future<Set<ClaimId>> renewal = threads.submit(() -> store.extendLeases(List.of(claim), now + 60_000));
            assertThat(renewal.get(10, TimeUnit.SECONDS)).as("renewed while the caller's transaction is open")
                .containsExactly(claim);
            store.finish(List.of(new Completion.Retry(id, claim.claim(), TaskStatus.SCHEDULED, now - 1, 1, "again")),
                    now);
            assertThat(status(id)).as("retried while the caller's transaction is open").isEqualTo("SCHEDULED");

            ClaimId second = store.claimIds(List.of(id), now, claim("b")).get(0).claimId();
            Future<?> completion = threads.submit(
                    () -> store.finish(List.of(new Completion.Succeeded(id, second.claim())), now));
            Thread.sleep(300);
            assertThat(completion).as("the completion releases the key: it waits for the caller").isNotDone();
            end.countDown();
            assertThat(caller.get(10, TimeUnit.SECONDS)).satisfies(kept -> {
                assertThat(kept.created()).isFalse();
                assertThat(kept.id()).isEqualTo(id);
            });
            completion.get(10, TimeUnit.SECONDS);
            assertThat(status(id)).isEqualTo("SUCCEEDED");
        }
        finally {
            end.countDown();
            threads.shutdownNow();
        }
    }

    /**
     * Callers racing for one key, each in a transaction of its own, all get the one task, and one of them is told it
     * created it: those whose insert waited for the winner's and then failed find it, whether their snapshot was taken
     * before the winner committed (half of them read first, so the row is found with the locking read by id) or not.
     */
    @Test
    void callersRacingForOneKeyInTransactionsAllGetTheOneTask() throws Exception {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try {
            for (int round = 0; round < 20; round++) {
                NewTask task = new NewTask("tx-race", "k" + round, "\"p\"", now + 60_000, TaskStatus.SCHEDULED,
                        null);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<InsertedTask>> answers = new ArrayList<>();
                for (int caller = 0; caller < 6; caller++) {
                    boolean readFirst = caller % 2 == 0;
                    answers.add(threads.submit(() -> transaction.execute(tx -> {
                        if (readFirst) { // the transaction's snapshot is taken here, before any insert
                            jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'tx-race'",
                                    Integer.class);
                        }
                        await(go);
                        return store.insert(List.of(task), now).get(0);
                    })));
                }
                go.countDown();
                List<InsertedTask> results = new ArrayList<>();
                for (Future<InsertedTask> answer : answers) {
                    results.add(answer.get(30, TimeUnit.SECONDS));
                }
                long id = jdbc.queryForObject("SELECT id FROM delay_task WHERE task_type = 'tx-race' AND task_key = ?",
                        Long.class, "k" + round);
                assertThat(results).extracting(InsertedTask::id).as("round %d", round).containsOnly(id);
                assertThat(results).filteredOn(InsertedTask::created).as("round %d: created", round).hasSize(1);
            }
        }
        finally {
            threads.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The connection breaks as the database commits a call's transaction of its own (a keyed and a plain task: two
     * statements): the rows are stored and the failure must say the outcome is unknown. Putting the connection's
     * settings back then failed too, with the pool's "Connection is closed" (no SQL state), which hid the commit's
     * failure: the call said nothing was stored, and the batcher, taking it for a refusal of the rows, wrote its
     * callers' rows again (the chaos test counted a row more than it was told of).
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aConnectionLostAsItsOwnTransactionCommitsLeavesTheOutcomeUnknown(String driver) {
        String type = "lost.commit." + driver;
        withConnectionLostAtCommit(driver, false, store -> assertThatThrownBy(
                () -> store.insert(keyedAndPlain(type), now)).isInstanceOf(WriteOutcomeUnknownException.class));
        assertThat(count(type)).as("committed").isEqualTo(2);
    }

    /** The connection breaks just after the commit answered: the call stored its rows and returns them. */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aConnectionLostJustAfterItsOwnTransactionCommittedReturnsTheTasks(String driver) {
        String type = "lost.after." + driver;
        withConnectionLostAtCommit(driver, true,
                store -> assertThat(store.insert(keyedAndPlain(type), now)).hasSize(2));
        assertThat(count(type)).as("committed").isEqualTo(2);
    }

    /**
     * A row the database refuses (a trigger's {@code SIGNAL}) in an autocommitted write stored nothing, and the
     * failure must say so, not that the outcome is unknown: MariaDB Connector/J gives a state it does not map, such as
     * 45000, the class {@code SQLTransientConnectionException}, which was read as a lost connection (and then the
     * batcher failed every caller of a shared write instead of writing the others' rows alone).
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aRowATriggerRefusesStoredNothingAndSaysSo(String driver) {
        String type = "refused." + driver;
        jdbc.execute("CREATE TRIGGER refuse_row BEFORE INSERT ON delay_task FOR EACH ROW "
                + "BEGIN IF NEW.task_type LIKE 'refused.%' THEN "
                + "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by a trigger'; END IF; END");
        try {
            withConnections(driver, pool -> pool, store -> assertThatThrownBy(
                    () -> store.insert(List.of(new NewTask(type, null, "\"p\"", now + 60_000, TaskStatus.SCHEDULED,
                            null)), now)).isInstanceOf(org.springframework.dao.DataAccessException.class)
                .hasMessageContaining("refused by a trigger"));
        }
        finally {
            jdbc.execute("DROP TRIGGER refuse_row");
        }
        assertThat(count(type)).isZero();
    }

    /**
     * The connection breaks while the database runs an autocommitted write, and the failure does not say so (no SQL
     * state, no connection exception class, as the pool's "Connection is closed"): the write is stored, so the call
     * must say the outcome is unknown. Before, such a failure read as the database refusing the rows: the call said
     * nothing was stored, and the batcher wrote its callers' rows again.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aWriteLostWithoutSayingSoLeavesTheOutcomeUnknown(String driver) {
        String type = "lost.quietly." + driver;
        withConnections(driver, pool -> writesLostQuietly(pool, "INSERT"), store -> assertThatThrownBy(
                () -> store.insert(List.of(new NewTask(type, null, "\"p\"", now + 60_000, TaskStatus.SCHEDULED,
                        null)), now)).isInstanceOf(WriteOutcomeUnknownException.class));
        assertThat(count(type)).as("committed").isEqualTo(1);
    }

    /** The same for a reschedule outside a transaction: the task has moved, so "nothing was changed" would be false. */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aRescheduleLostWithoutSayingSoLeavesTheOutcomeUnknown(String driver) {
        long id = insert(1, "lost.move." + driver, now + 60_000).get(0);
        withConnections(driver, pool -> writesLostQuietly(pool, "UPDATE"), store -> assertThatThrownBy(
                () -> store.reschedule(id, now + 120_000, TaskStatus.SCHEDULED, now))
            .isInstanceOf(WriteOutcomeUnknownException.class));
        assertThat(jdbc.queryForObject("SELECT due_at FROM delay_task WHERE id = ?", Long.class, id)).as("moved")
            .isEqualTo(now + 120_000);
    }

    /**
     * The rows of several callers written together give up on a key that a transaction still open holds, after a
     * short wait: the write stores nothing, says it was a lock, and leaves the pool's connection with its own lock
     * wait. Both ways the store cuts the wait: MariaDB's per statement, and the session's, as on MySQL (whose ids the
     * second runs with on this MariaDB). Before ({@code insertShared} was {@code insert}), it waited the server's lock
     * wait timeout (50 s).
     */
    @ParameterizedTest
    @CsvSource({ "mysql, false", "mariadb, false", "mysql, true", "mariadb, true" })
    void aSharedWriteGivesUpOnAKeyAnOpenTransactionHoldsAndStoresNothing(String driver, boolean mysqlWay)
            throws Exception {
        String type = "held." + driver + "." + mysqlWay;
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (HikariDataSource pool = pool(driver); Connection holder = dataSource.getConnection()) {
            pool.setMaximumPoolSize(1); // the one connection the write used is the one asked below
            int lockWait = new JdbcTemplate(pool).queryForObject("SELECT @@SESSION.innodb_lock_wait_timeout",
                    Integer.class);
            holder.setAutoCommit(false);
            try (PreparedStatement hold = holder.prepareStatement("INSERT INTO delay_task (task_type, task_key, "
                    + "payload, due_at, status, created_at, updated_at) VALUES (?, 'k', '1', ?, 'SCHEDULED', ?, ?)")) {
                hold.setString(1, type);
                hold.setLong(2, now + 60_000);
                hold.setLong(3, now);
                hold.setLong(4, now);
                hold.executeUpdate();
            }
            JdbcTaskStore store = new JdbcTaskStore(pool, "delay_task");
            TaskInserts mysqlInserts = new TaskInserts(pool, LockFailures.template(pool),
                    TableNames.quoted("delay_task"), new GeneratedIds(false));
            try {
                List<NewTask> rows = new ArrayList<>();
                for (String key : List.of("a", "k", "z")) {
                    rows.add(new NewTask(type, key, "\"p\"", now + 60_000, TaskStatus.SCHEDULED, null));
                }
                Future<List<InsertedTask>> shared = caller.submit(() -> mysqlWay ? mysqlInserts.insert(rows, now, true)
                        : store.insertShared(rows, now));
                assertThatThrownBy(() -> shared.get(20, TimeUnit.SECONDS)).as("gave up, the transaction open")
                    .hasCauseInstanceOf(CannotAcquireLockException.class);
                assertThat(new JdbcTemplate(pool).queryForObject("SELECT @@SESSION.innodb_lock_wait_timeout",
                        Integer.class)).as("the session's lock wait, put back").isEqualTo(lockWait);
            }
            finally {
                store.close();
                holder.rollback();
            }
        }
        finally {
            caller.shutdownNow();
        }
        assertThat(count(type)).as("nothing stored").isZero();
    }

    /** Runs {@code call} on a store whose connections break at a commit ({@link #connectionLostAtCommit}). */
    private static void withConnectionLostAtCommit(String driver, boolean answered,
            java.util.function.Consumer<JdbcTaskStore> call) {
        withConnections(driver, pool -> connectionLostAtCommit(pool, answered), call);
    }

    /** Runs {@code call} on a store over a pool of {@code driver}'s connections, wrapped by {@code breaking}. */
    private static void withConnections(String driver, java.util.function.UnaryOperator<DataSource> breaking,
            java.util.function.Consumer<JdbcTaskStore> call) {
        try (HikariDataSource pool = pool(driver)) {
            JdbcTaskStore store = new JdbcTaskStore(breaking.apply(pool), "delay_task");
            try {
                call.accept(store);
            }
            finally {
                store.close();
            }
        }
    }

    private static int count(String type) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = ?", Integer.class, type);
    }

    private static List<NewTask> keyedAndPlain(String type) {
        return List.of(new NewTask(type, null, "\"p\"", now + 60_000, TaskStatus.SCHEDULED, null),
                new NewTask(type, "k", "\"p\"", now + 60_000, TaskStatus.SCHEDULED, null));
    }

    /** A pool of two on the test's database for the driver named {@code mysql} or {@code mariadb}. */
    private static HikariDataSource pool(String driver) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(dataSource.getJdbcUrl().replaceFirst("^jdbc:(mysql|mariadb):", "jdbc:" + driver + ":"));
        pool.setUsername(dataSource.getUsername());
        pool.setPassword(dataSource.getPassword());
        pool.setMaximumPoolSize(2);
        return pool;
    }

    /**
     * Connections that break at a commit: the commit is made and the connection aborted for real; then, unless
     * {@code answered}, the caller gets the driver's own failure of a commit on it, as when the answer was lost.
     */
    private static DataSource connectionLostAtCommit(DataSource pool, boolean answered) {
        return wrapped(pool, connection -> proxy(Connection.class, (p, method, args) -> {
            if (method.getName().equals("commit")) {
                connection.commit();
                connection.abort(Runnable::run);
                if (answered) {
                    return null;
                }
            }
            return invoke(method, connection, args);
        }));
    }

    /**
     * Connections whose statements starting with {@code verb} run for real, then the connection is aborted for real,
     * and the caller gets a failure that does not say the connection broke.
     */
    private static DataSource writesLostQuietly(DataSource pool, String verb) {
        return wrapped(pool, connection -> proxy(Connection.class, (p, method, args) -> {
            Object made = invoke(method, connection, args);
            if (!(made instanceof PreparedStatement statement) || !args[0].toString().strip().startsWith(verb)) {
                return made;
            }
            return proxy(PreparedStatement.class, (sp, sm, sa) -> {
                Object answer = invoke(sm, statement, sa);
                if (sm.getName().startsWith("execute")) {
                    connection.abort(Runnable::run);
                    throw new SQLException("Connection is closed");
                }
                return answer;
            });
        }));
    }

    /** The test's pool, counting the statements prepared or created on its connections. */
    private static DataSource counting(AtomicInteger statements) {
        return wrapped(dataSource, connection -> counted(connection, statements));
    }

    /** The pool's connections, each as {@code wrap} makes it. */
    private static DataSource wrapped(DataSource pool, java.util.function.UnaryOperator<Connection> wrap) {
        return proxy(DataSource.class, (p, method, args) -> {
            Object result = invoke(method, pool, args);
            return result instanceof Connection connection ? wrap.apply(connection) : result;
        });
    }

    private static <T> T proxy(Class<T> type, java.lang.reflect.InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(JdbcTaskStoreIT.class.getClassLoader(), new Class<?>[] { type },
                handler));
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    private static Connection counted(Connection target, AtomicInteger statements) {
        return proxy(Connection.class, (p, method, args) -> {
            if (method.getName().equals("prepareStatement") || method.getName().equals("createStatement")) {
                statements.incrementAndGet();
            }
            return invoke(method, target, args);
        });
    }

    /**
     * A pool can hand out connections without auto-commit ({@code spring.datasource.hikari.auto-commit=false}, as some
     * JPA setups do). A schedule, reschedule or cancel outside a transaction must still have committed when it
     * returns, not be rolled back when the pool takes the connection back.
     */
    @Test
    void writesOutsideATransactionCommitOnAPoolWithoutAutoCommit() {
        try (HikariDataSource manual = new HikariDataSource()) {
            manual.setJdbcUrl(dataSource.getJdbcUrl());
            manual.setUsername(dataSource.getUsername());
            manual.setPassword(dataSource.getPassword());
            manual.setMaximumPoolSize(2);
            manual.setAutoCommit(false);
            JdbcTaskStore onManual = new JdbcTaskStore(manual, "delay_task");
            try {
                long plain = onManual.insert(List.of(new NewTask("manual", null, "\"p\"", now + 60_000,
                        TaskStatus.SCHEDULED, null)), now).get(0).id();
                long keyed = onManual.insert(List.of(new NewTask("manual", "k", "\"p\"", now + 60_000,
                        TaskStatus.SCHEDULED, null)), now).get(0).id();
                assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'manual'",
                        Integer.class)).as("scheduled").isEqualTo(2);

                assertThat(onManual.reschedule(plain, now + 90_000, TaskStatus.SCHEDULED, now)).isTrue();
                assertThat(jdbc.queryForObject("SELECT due_at FROM delay_task WHERE id = ?", Long.class, plain))
                    .as("rescheduled").isEqualTo(now + 90_000);
                assertThat(onManual.cancel(keyed, now)).contains("manual");
                assertThat(status(keyed)).as("cancelled").isEqualTo("CANCELLED");
            }
            finally {
                onManual.close();
            }
        }
    }

    private static int attempts(long id) {
        return jdbc.queryForObject("SELECT attempts FROM delay_task WHERE id = ?", Integer.class, id);
    }

    private static String status(long id) {
        return jdbc.queryForObject("SELECT status FROM delay_task WHERE id = ?", String.class, id);
    }

}
