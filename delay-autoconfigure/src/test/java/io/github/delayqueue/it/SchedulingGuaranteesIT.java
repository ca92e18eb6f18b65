package io.github.delayqueue.it;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.OutcomeUnknownException;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.testservices.TcpProxy;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What a {@code schedule()} call promises, under concurrency, inside and outside transactions, with both JDBC drivers:
 * when it returns each task exists once; when it throws, nothing of it was stored, unless it says the outcome is
 * unknown. Database failures are made by triggers on the real table, so the real statements fail where they would.
 */
@Tag("reliability")
@ExtendWith(OutputCaptureExtension.class)
class SchedulingGuaranteesIT {

    private final Journal journal = new Journal();

    private Instances instances;

    private JdbcTemplate jdbc;

    @BeforeEach
    void start() {
        instances = new Instances(journal, "delay.worker.lease=3s", "delay.worker.recovery-interval=500ms");
        jdbc = new JdbcTemplate(instances.database().dataSource());
    }

    @AfterEach
    void close() {
        instances.close();
    }

    private ConfigurableApplicationContext instance(String driver, String... properties) {
        List<String> all = new ArrayList<>(List.of(properties));
        all.add("spring.datasource.url=" + instances.database().url(driver));
        return instances.start(all.toArray(String[]::new));
    }

    /** An instance whose {@code scheduled} and {@code cancelled} events (what meters count) go to {@code events}. */
    private ConfigurableApplicationContext instance(String driver, Counted events, String... properties) {
        List<String> all = new ArrayList<>(List.of(properties));
        all.add("spring.datasource.url=" + instances.database().url(driver));
        return instances.start(ctx -> ctx.getBeanFactory().registerSingleton("countedEvents", events),
                all.toArray(String[]::new));
    }

    private int count(String where, Object... args) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE " + where, Integer.class, args);
    }

    /**
     * Many threads scheduling at once get their calls coalesced into multi-row writes; each call must get its own
     * ids and each task must exist, and run, exactly once. (MariaDB Connector/J reports one generated key per
     * multi-row insert: this used to throw "Fewer generated keys" after the rows were committed.)
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void concurrentCallsOutsideTransactionsEachStoreTheirTasksOnce(String driver) throws Exception {
        DelayQueue queue = instance(driver).getBean(DelayQueue.class);
        instance(driver);
        ExecutorService callers = Executors.newFixedThreadPool(16);
        Map<String, Long> idByPayload = new ConcurrentHashMap<>();
        List<Future<?>> calls = new ArrayList<>();
        try {
            for (int t = 0; t < 16; t++) {
                int thread = t;
                calls.add(callers.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        String payload = thread + "-" + i;
                        if (i % 10 == 9) {
                            List<Long> ids = queue.scheduleAll(List.of(TaskRequest.of("test.ok", payload + "a").build(),
                                    TaskRequest.of("test.ok", payload + "b").key("k-" + payload).build()));
                            idByPayload.put("\"" + payload + "a\"", ids.get(0));
                            idByPayload.put("\"" + payload + "b\"", ids.get(1));
                        }
                        else {
                            idByPayload.put("\"" + payload + "\"", queue.schedule("test.ok", payload,
                                    Duration.ofMillis(200 + i)));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(120, TimeUnit.SECONDS);
            }
        }
        finally {
            callers.shutdownNow();
        }

        int expected = 16 * 44;
        assertThat(idByPayload).hasSize(expected);
        assertThat(new HashSet<>(idByPayload.values())).as("every task got an id of its own").hasSize(expected);
        assertThat(count("task_type = 'test.ok'")).isEqualTo(expected);
        idByPayload.forEach((payload, id) -> assertThat(jdbc.queryForObject(
                "SELECT payload FROM delay_task WHERE id = ?", String.class, id)).isEqualTo(payload));
        journal.awaitDistinct(expected, 60);
        Lateness.assertOnceAndOnTime(journal, idByPayload.values(), 10_000);
    }

    /**
     * Two transactions schedule the same key at once (REPEATABLE READ, the default): the second waits for the
     * first and gets its id, never an exception that would roll back its caller's work.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void concurrentTransactionsSchedulingOneKeyGetOneId(String driver) throws Exception {
        ConfigurableApplicationContext context = instance(driver, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                String key = "order-" + round;
                CyclicBarrier together = new CyclicBarrier(2);
                List<Future<Long>> both = new ArrayList<>();
                for (int caller = 0; caller < 2; caller++) {
                    both.add(callers.submit(() -> tx.execute(status -> {
                        // each transaction reads first, so its snapshot is older than the other's insert
                        queue.find("test.ok", "no-such-key");
                        meet(together);
                        return queue.schedule(TaskRequest.of("test.ok", "x").key(key).delay(Duration.ofHours(1))
                            .build());
                    })));
                }
                long first = both.get(0).get(30, TimeUnit.SECONDS);
                long second = both.get(1).get(30, TimeUnit.SECONDS);
                assertThat(second).as("round %d", round).isEqualTo(first);
                assertThat(count("task_key = ?", key)).isEqualTo(1);
            }
        }
        finally {
            callers.shutdownNow();
        }
    }

    /**
     * A deadlock in the keyed statement of a mixed batch: the whole call is rolled back and retried, so the
     * unkeyed tasks of the first try are not left behind as duplicates.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aDeadlockPartWayIsRetriedWithoutDuplicatingTheTasksBeforeIt(String driver) {
        DelayQueue queue = instance(driver, "delay.worker.enabled=false").getBean(DelayQueue.class);
        jdbc.execute("CREATE TABLE trigger_fired (n INT NOT NULL) ENGINE = MyISAM"); // outlives rollbacks
        jdbc.execute("INSERT INTO trigger_fired VALUES (0)");
        jdbc.execute("""
                CREATE TRIGGER deadlock_once BEFORE INSERT ON delay_task FOR EACH ROW
                BEGIN
                  IF NEW.task_key = 'deadlock-once' AND (SELECT n FROM trigger_fired) = 0 THEN
                    UPDATE trigger_fired SET n = 1;
                    SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'injected deadlock';
                  END IF;
                END""");

        List<Long> ids = queue.scheduleAll(List.of(TaskRequest.of("plain", "1").delay(Duration.ofHours(1)).build(),
                TaskRequest.of("plain", "2").delay(Duration.ofHours(1)).build(),
                TaskRequest.of("plain", "3").delay(Duration.ofHours(1)).build(),
                TaskRequest.of("keyed", "4").key("deadlock-once").delay(Duration.ofHours(1)).build()));

        assertThat(jdbc.queryForObject("SELECT n FROM trigger_fired", Integer.class)).as("the deadlock happened")
            .isEqualTo(1);
        assertThat(ids).doesNotHaveDuplicates().hasSize(4);
        assertThat(count("task_type = 'plain'")).isEqualTo(3);
        assertThat(count("task_type = 'keyed'")).isEqualTo(1);
    }

    /** A batch of two statements whose second one fails: the exception says nothing was stored, and it is true. */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aCallThatFailsPartWayStoresNothing(String driver) {
        DelayQueue queue = instance(driver, "delay.worker.enabled=false").getBean(DelayQueue.class);
        refusePayload("\"poison\"");
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            requests.add(TaskRequest.of("bulk", i).delay(Duration.ofHours(1)).build());
        }
        requests.add(TaskRequest.of("bulk", "poison").delay(Duration.ofHours(1)).build()); // in a second statement

        assertThatThrownBy(() -> queue.scheduleAll(requests)).isInstanceOf(DelayQueueException.class)
            .isNotInstanceOf(OutcomeUnknownException.class)
            .hasMessageContaining("Nothing was stored");
        assertThat(count("task_type = 'bulk'")).isZero();
    }

    /**
     * Inside a transaction a failed call leaves nothing of itself behind, so a caller that catches the failure
     * and commits the rest of its work does not commit half a batch.
     */
    @Test
    void insideATransactionAFailedCallLeavesNothingOfItBehind() {
        ConfigurableApplicationContext context = instance("mysql", "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        refusePayload("\"poison\"");
        jdbc.execute("CREATE TABLE orders (id INT PRIMARY KEY)");
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            requests.add(TaskRequest.of("bulk", i).delay(Duration.ofHours(1)).build());
        }
        requests.add(TaskRequest.of("bulk", "poison").delay(Duration.ofHours(1)).build());

        new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
            new JdbcTemplate(context.getBean(javax.sql.DataSource.class)).update("INSERT INTO orders VALUES (1)");
            assertThatThrownBy(() -> queue.scheduleAll(requests)).isInstanceOf(DelayQueueException.class);
        });

        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class)).isEqualTo(1);
        assertThat(count("task_type = 'bulk'")).isZero();
    }

    /**
     * The connection dies while the database executes the (autocommitted) write: the task may exist, and the
     * exception must say so and how to retry safely, not "nothing was stored".
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aConnectionLostWhileTheWriteRunsSaysTheTaskMayExist(String driver) throws Exception {
        connectionsDroppedMidStatement(driver, """
                CREATE TRIGGER slow_write BEFORE INSERT ON delay_task FOR EACH ROW
                BEGIN
                  IF NEW.payload = '"slow"' THEN
                    DO SLEEP(1.5);
                  END IF;
                END""", queue -> null, (queue, none) -> assertThatThrownBy(
                () -> queue.schedule("slow", "slow", Duration.ofHours(1)))
            .isInstanceOf(OutcomeUnknownException.class)
            .hasMessageContaining("may or may not")
            .hasMessageContaining("key"));
        await().atMost(10, TimeUnit.SECONDS).until(() -> count("task_type = 'slow'") == 1);
    }

    /**
     * A transaction still open holds a key. Calls outside transactions that schedule the same key wait for it (they
     * must: until it commits or rolls back, the key's task may or may not exist), and calls without a key must not
     * wait with them. Before, the two waiting writes held both of the shared writes' slots, and every call outside a
     * transaction waited for the open one (up to the lock wait timeout, and again for each retry).
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void callsWithoutAKeyDoNotWaitForAKeyAnOpenTransactionHolds(String driver) throws Exception {
        othersGoOnWhileAKeyIsHeld(driver, (queue, i) -> queue.schedule("plain", i, Duration.ofHours(1)));
    }

    /**
     * As above, for calls with other keys, which share their writes with the held key's callers: a write in flight
     * for long gives up its slot. Before, the two writes waiting for the key held the keyed calls' two slots, and
     * every call with a key waited for the open transaction.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void callsWithOtherKeysDoNotWaitForAKeyAnOpenTransactionHolds(String driver) throws Exception {
        othersGoOnWhileAKeyIsHeld(driver, (queue, i) -> queue.schedule(keyed("held", "other-" + i)));
    }

    /**
     * A call for a key that a transaction still open holds shares one write with calls for other keys (they queued
     * while two slow writes held both slots): the write gives up on the lock after a short wait and each call is
     * written alone, so the others return and only the key's call waits for the transaction. Before, the shared write
     * waited the lock wait timeout (50 s) with every call in it.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void callsThatShareAWriteWithAHeldKeyDoNotWaitForIt(String driver) throws Exception {
        ConfigurableApplicationContext context = instance(driver, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        jdbc.execute("""
                CREATE TRIGGER slow_keys BEFORE INSERT ON delay_task FOR EACH ROW
                BEGIN
                  IF NEW.task_key LIKE 'slow-%' THEN
                    DO SLEEP(2);
                  END IF;
                END""");
        CountDownLatch commit = new CountDownLatch(1);
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            Future<Long> holder = holdKey(threads, context, commit);
            long lockWaitsBefore = rowLockWaits();
            // the nine calls wait on threads of their own, so that they queue at once when let go: well within
            // the 500 ms after which a caller would take a slow write's slot alone
            CountDownLatch go = new CountDownLatch(1);
            Future<Long> sameKey = threads.submit(() -> {
                go.await();
                return queue.schedule(keyed("held", "k"));
            });
            List<Future<Long>> other = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String key = "other-" + i;
                other.add(threads.submit(() -> {
                    go.await();
                    return queue.schedule(keyed("held", key));
                }));
            }
            // one after the other, so that they are two writes: queued at once, they could share one, whose rows
            // sleep in turn, and two never sleep at the same time (a CI run waited 20 s for it)
            threads.submit(() -> queue.schedule(keyed("slow", "slow-1")));
            await().atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10)).until(() -> sleepingWrites() == 1);
            threads.submit(() -> queue.schedule(keyed("slow", "slow-2")));
            await().atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10)).until(() -> sleepingWrites() == 2);
            go.countDown();
            for (Future<Long> call : other) {
                assertThat(call.get(20, TimeUnit.SECONDS)).as("another key, the transaction open").isPositive();
            }
            assertThat(sameKey.isDone()).as("the key's call waits for the transaction").isFalse();

            commit.countDown();
            long id = holder.get(20, TimeUnit.SECONDS);
            assertThat(sameKey.get(20, TimeUnit.SECONDS)).as("the transaction's task").isEqualTo(id);
            assertThat(rowLockWaits() - lockWaitsBefore).as("the key's call waited in the shared write, then alone")
                .isGreaterThanOrEqualTo(2);
            assertThat(count("task_type = 'held'")).isEqualTo(9);
        }
        finally {
            commit.countDown();
            threads.shutdownNow();
            jdbc.execute("DROP TRIGGER slow_keys");
        }
    }

    /**
     * A call outside a transaction whose key another transaction holds past the database's lock wait fails after that
     * one wait, says what held it and stores nothing: a deadlock is retried (above), a lock wait timeout is not.
     * Before, the queue waited three times (3 x 50 s with InnoDB's default) before the caller heard.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aCallWhoseKeyIsHeldPastTheLockWaitFailsAfterOneWait(String driver) throws Exception {
        ConfigurableApplicationContext context = instance(driver, "delay.worker.enabled=false",
                "spring.datasource.hikari.connection-init-sql=SET SESSION innodb_lock_wait_timeout = 1");
        DelayQueue queue = context.getBean(DelayQueue.class);
        CountDownLatch commit = new CountDownLatch(1);
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            Future<Long> holder = holdKey(threads, context, commit);
            long lockWaitsBefore = rowLockWaits();

            Throwable failure = catchThrowable(() -> queue.schedule(keyed("held", "k")));

            assertThat(rowLockWaits() - lockWaitsBefore).as("the call's lock waits").isEqualTo(1);
            assertThat(failure).isExactlyInstanceOf(DelayQueueException.class)
                .hasMessageContaining("stayed locked by another transaction")
                .hasMessageContaining("Nothing of this call was written");

            commit.countDown();
            long id = holder.get(20, TimeUnit.SECONDS);
            assertThat(count("task_type = 'held'")).as("only the transaction's task").isEqualTo(1);
            assertThat(count("id = ?", id)).isEqualTo(1);
        }
        finally {
            commit.countDown();
            threads.shutdownNow();
        }
    }

    /**
     * A transaction on one of {@code threads} that schedules key {@code k} of type {@code held} and stays open until
     * {@code commit}; returned once it holds the key, as the future of the task's id.
     */
    private static Future<Long> holdKey(ExecutorService threads, ConfigurableApplicationContext context,
            CountDownLatch commit) throws InterruptedException {
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        CountDownLatch scheduled = new CountDownLatch(1);
        Future<Long> holder = threads.submit(() -> tx.execute(status -> {
            long id = queue.schedule(keyed("held", "k"));
            scheduled.countDown();
            awaitQuietly(commit);
            return id;
        }));
        assertThat(scheduled.await(20, TimeUnit.SECONDS)).as("the transaction holds the key").isTrue();
        return holder;
    }

    /** Writes of this test's database in a trigger's {@code SLEEP}. */
    private int sleepingWrites() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                + "WHERE DB = DATABASE() AND STATE = 'User sleep'", Integer.class);
    }

    /** The server's count of row lock waits so far. */
    private long rowLockWaits() {
        return jdbc.queryForObject("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                + "WHERE VARIABLE_NAME = 'INNODB_ROW_LOCK_WAITS'", Long.class);
    }

    /** Two calls wait for key {@code k} that a transaction holds; eight {@code others} must return meanwhile. */
    private void othersGoOnWhileAKeyIsHeld(String driver, BiFunction<DelayQueue, Integer, Long> others)
            throws Exception {
        ConfigurableApplicationContext context = instance(driver, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        CountDownLatch commit = new CountDownLatch(1);
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            Future<Long> holder = holdKey(threads, context, commit);
            List<Future<Long>> sameKey = new ArrayList<>();
            for (int waiting = 1; waiting <= 2; waiting++) {
                sameKey.add(threads.submit(() -> queue.schedule(keyed("held", "k"))));
                int writes = waiting;
                await().atMost(20, TimeUnit.SECONDS).until(() -> lockWaits() == writes);
            }

            List<Future<Long>> other = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int call = i;
                other.add(threads.submit(() -> others.apply(queue, call)));
            }
            for (Future<Long> call : other) {
                assertThat(call.get(20, TimeUnit.SECONDS)).as("another call, the transaction open").isPositive();
            }
            assertThat(sameKey).as("the key's callers wait for the transaction").noneMatch(Future::isDone);

            commit.countDown();
            long id = holder.get(20, TimeUnit.SECONDS);
            for (Future<Long> call : sameKey) {
                assertThat(call.get(20, TimeUnit.SECONDS)).as("the transaction's task").isEqualTo(id);
            }
            assertThat(count("task_type = 'held' AND task_key = 'k'")).isEqualTo(1);
        }
        finally {
            commit.countDown();
            threads.shutdownNow();
        }
    }

    /** Transactions of this test's database waiting for a row lock. */
    private int lockWaits() {
        return jdbc.queryForObject("""
                SELECT COUNT(*) FROM information_schema.INNODB_TRX t
                JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
                WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()""", Integer.class);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A reschedule outside a transaction whose connection dies while the database executes the (autocommitted)
     * update: the task may have moved, and the exception must say so, not "nothing was changed".
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aConnectionLostWhileARescheduleRunsSaysTheTaskMayHaveMoved(String driver) throws Exception {
        long[] task = new long[2]; // its id and its due time before
        connectionsDroppedMidStatement(driver, """
                CREATE TRIGGER slow_move BEFORE UPDATE ON delay_task FOR EACH ROW
                BEGIN
                  IF NEW.due_at <> OLD.due_at THEN
                    DO SLEEP(1.5);
                  END IF;
                END""", queue -> {
            task[0] = queue.schedule("slow", "slow", Duration.ofHours(1));
            task[1] = dueAt(task[0]);
            return task[0];
        }, (queue, id) -> assertThatThrownBy(() -> queue.reschedule(id, Instant.now().plus(Duration.ofHours(2))))
            .isInstanceOf(OutcomeUnknownException.class)
            .hasMessageContaining("may or may not")
            .hasMessageContaining("do it again"));
        await().atMost(10, TimeUnit.SECONDS).until(() -> dueAt(task[0]) > task[1]);
    }

    private long dueAt(long id) {
        return jdbc.queryForObject("SELECT due_at FROM delay_task WHERE id = ?", Long.class, id);
    }

    /**
     * Runs {@code call} on an instance whose connections go through a proxy, after {@code before} and then
     * {@code trigger} on the table: the trigger holds the call's statement on the server, and 500 ms into the call
     * the proxy drops every connection, mid-statement, while the server goes on and commits it.
     */
    private <T> void connectionsDroppedMidStatement(String driver, String trigger,
            java.util.function.Function<DelayQueue, T> before, java.util.function.BiConsumer<DelayQueue, T> call)
            throws Exception {
        String direct = instances.database().url(driver);
        java.net.URI uri = java.net.URI.create(direct.substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(uri.getHost(), uri.getPort())) {
            String proxied = direct.replace(uri.getHost() + ":" + uri.getPort(), "127.0.0.1:" + proxy.port());
            DelayQueue queue = instances.start("delay.worker.enabled=false", "spring.datasource.url=" + proxied)
                .getBean(DelayQueue.class);
            T prepared = before.apply(queue);
            jdbc.execute(trigger);
            Thread killer = new Thread(() -> {
                sleep(500);
                proxy.dropConnections();
            });
            killer.start();
            call.accept(queue, prepared);
            killer.join();
        }
    }

    /**
     * A bulk operation commits a batch at a time; one that fails part-way says how many tasks the batches before
     * it changed (they stay changed), not that nothing was, and whether calling it again is safe: a cancel or a
     * move to one due time is, a shift is not (it would move the first batches twice).
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aBulkOperationThatFailsPartWaySaysWhatItDid(String driver) {
        DelayQueue queue = instance(driver, "delay.worker.enabled=false").getBean(DelayQueue.class);
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < 800; i++) {
            requests.add(TaskRequest.of("bulk", i).key("k-%04d".formatted(i)).delay(Duration.ofHours(1)).build());
        }
        queue.scheduleAll(requests);
        // in the second batch of 500 (keyed tasks go in key order)
        jdbc.execute("CREATE TRIGGER refuse_change BEFORE UPDATE ON delay_task FOR EACH ROW "
                + "BEGIN IF NEW.task_key = 'k-0600' THEN "
                + "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by a trigger'; END IF; END");

        assertThatThrownBy(() -> queue.shiftAll("bulk", "k-", Duration.ofMinutes(5)))
            .isInstanceOf(DelayQueueException.class)
            .isNotInstanceOf(OutcomeUnknownException.class)
            .hasMessageContaining("refused by a trigger")
            .hasMessageContaining("after 500 task(s)")
            .hasMessageContaining("would shift the tasks done so far once more")
            .hasMessageNotContaining("Nothing was");
        assertThatThrownBy(() -> queue.cancelAll("bulk", "k-"))
            .isInstanceOf(DelayQueueException.class)
            .hasMessageContaining("after 500 task(s)")
            .hasMessageContaining("Calling it again goes on with the rest")
            .hasMessageNotContaining("Nothing was");
        assertThat(count("task_type = 'bulk' AND status = 'CANCELLED'")).isEqualTo(500);

        jdbc.execute("DROP TRIGGER refuse_change");
        assertThat(queue.cancelAll("bulk", "k-")).as("called again").isEqualTo(300);
    }

    /**
     * Many callers schedule the same keys at once, some inside {@code REPEATABLE READ} transactions (which read first,
     * so the others' rows are committed after their snapshots), some outside (their calls share statements): each
     * key is one task, every caller gets its id, and exactly one caller is told it created it, so the
     * {@code scheduled} event (and the counter behind it) counts each task once.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void ofConcurrentCallsSchedulingOneKeyExactlyOneCreatesIt(String driver) throws Exception {
        Counted events = new Counted();
        ConfigurableApplicationContext context = instance(driver, events, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        int callers = 6;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            for (int round = 0; round < 12; round++) {
                String type = "race.r" + round;
                CyclicBarrier together = new CyclicBarrier(callers);
                List<Future<List<Long>>> calls = new ArrayList<>();
                for (int caller = 0; caller < callers; caller++) {
                    boolean inTransaction = caller % 2 == 0;
                    // one key alone, or two in one call, in either order: single- and multi-row keyed writes
                    List<TaskRequest> requests = switch (caller % 3) {
                        case 0 -> List.of(keyed(type, "a"));
                        case 1 -> List.of(keyed(type, "a"), keyed(type, "b"));
                        default -> List.of(keyed(type, "b"), keyed(type, "a"));
                    };
                    calls.add(pool.submit(() -> {
                        if (!inTransaction) {
                            meet(together);
                            return queue.scheduleAll(requests);
                        }
                        return tx.execute(status -> {
                            queue.find(type, "no-such-key"); // the snapshot, before the others' rows
                            meet(together);
                            return queue.scheduleAll(requests);
                        });
                    }));
                }
                Set<Long> ids = new HashSet<>();
                for (Future<List<Long>> call : calls) {
                    ids.addAll(call.get(60, TimeUnit.SECONDS));
                }
                assertThat(count("task_type = ?", type)).as("round %d: tasks", round).isEqualTo(2);
                assertThat(ids).as("round %d: ids", round).hasSize(2);
                assertThat(events.scheduledOf(type)).as("round %d: callers told they created a task", round)
                    .isEqualTo(2);
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    /**
     * No race needed: a transaction whose snapshot is older than a row another call committed meanwhile schedules
     * the same key (alone, and among new keys in one call). It gets the existing task, which it did not create.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aKeyCommittedAfterTheTransactionsSnapshotIsFoundNotCreated(String driver) throws Exception {
        Counted events = new Counted();
        ConfigurableApplicationContext context = instance(driver, events, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            List<Long> inside = tx.execute(status -> {
                queue.find("snap", "no-such-key"); // REPEATABLE READ: the snapshot is taken here
                long alone = call(other, () -> queue.schedule(keyed("snap", "alone")));
                long among = call(other, () -> queue.schedule(keyed("snap", "b")));
                List<Long> ids = new ArrayList<>();
                ids.add(queue.schedule(keyed("snap", "alone")));
                ids.addAll(queue.scheduleAll(List.of(keyed("snap", "a"), keyed("snap", "b"), keyed("snap", "c"))));
                assertThat(ids.get(0)).isEqualTo(alone);
                assertThat(ids.get(2)).isEqualTo(among);
                return ids;
            });
            assertThat(inside).hasSize(4);
            assertThat(count("task_type = 'snap'")).isEqualTo(4);
            assertThat(events.scheduledOf("snap")).as("tasks counted as scheduled").isEqualTo(4);
        }
        finally {
            other.shutdownNow();
        }
    }

    /**
     * A transaction of another DataSource is not the queue's: the task is committed at once, so it must be indexed at
     * once too (it would otherwise wait for a commit that never concerns it, and run late from the sweep), and the
     * caller is warned, once, that a rollback will not take the task back.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aTaskScheduledInAnotherDataSourcesTransactionIsCommittedAndIndexedAtOnce(String driver,
            CapturedOutput output) {
        ConfigurableApplicationContext context = instance(driver, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        jdbc.execute("CREATE TABLE orders (id INT PRIMARY KEY)");
        DataSource otherDataSource = otherDataSource(driver);
        TransactionTemplate otherTx = new TransactionTemplate(new DataSourceTransactionManager(otherDataSource));
        otherTx.setName("OrderService.placeOrder");
        List<Long> ids = new ArrayList<>();
        for (int call = 0; call < 2; call++) {
            otherTx.executeWithoutResult(status -> {
                new JdbcTemplate(otherDataSource).update("INSERT INTO orders VALUES (1)");
                ids.add(queue.schedule("test.ok", "first", Duration.ofMinutes(5)));
                ids.add(queue.schedule("test.ok", "second", Duration.ofMinutes(5))); // on the same transaction
                assertThat(ids).as("indexed before that transaction ends").allMatch(id -> indexedSoon(context, id));
                status.setRollbackOnly();
            });
        }

        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class)).isZero();
        assertThat(count("task_type = 'test.ok'")).as("committed on their own").isEqualTo(4);
        assertThat(ids).allMatch(id -> indexedSoon(context, id));
        assertThat(output.getAll()).containsOnlyOnce("OrderService.placeOrder");
    }

    /**
     * {@code SUPPORTS} runs without a transaction, so the row is autocommitted; a scope that ends in a rollback has no
     * commit to wait for, and the task must be indexed all the same.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aTaskScheduledInASupportsScopeThatRollsBackIsIndexed(String driver) {
        ConfigurableApplicationContext context = instance(driver, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate supports = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);

        long id = supports.execute(status -> {
            long scheduled = queue.schedule("test.ok", "x", Duration.ofMinutes(5));
            status.setRollbackOnly();
            return scheduled;
        });

        assertThat(count("id = ?", id)).isEqualTo(1);
        assertThat(indexedSoon(context, id)).as("task %d indexed", id).isTrue();
    }

    /**
     * Inside another DataSource's transaction the insert is autocommitted, so a deadlock rolled back only it: it is
     * retried like any call outside a transaction, not handed to a caller whose own transaction is unharmed.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aDeadlockInAnotherDataSourcesTransactionIsRetried(String driver) {
        DelayQueue queue = instance(driver, "delay.worker.enabled=false").getBean(DelayQueue.class);
        jdbc.execute("CREATE TABLE trigger_fired (n INT NOT NULL) ENGINE = MyISAM");
        jdbc.execute("INSERT INTO trigger_fired VALUES (0)");
        jdbc.execute("""
                CREATE TRIGGER deadlock_once BEFORE INSERT ON delay_task FOR EACH ROW
                BEGIN
                  IF NEW.task_key = 'deadlock-once' AND (SELECT n FROM trigger_fired) = 0 THEN
                    UPDATE trigger_fired SET n = 1;
                    SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, MESSAGE_TEXT = 'injected deadlock';
                  END IF;
                END""");
        TransactionTemplate otherTx = new TransactionTemplate(new DataSourceTransactionManager(
                otherDataSource(driver)));

        long id = otherTx.execute(status -> queue.schedule(TaskRequest.of("keyed", "x").key("deadlock-once")
            .delay(Duration.ofHours(1)).build()));

        assertThat(jdbc.queryForObject("SELECT n FROM trigger_fired", Integer.class)).as("the deadlock happened")
            .isEqualTo(1);
        assertThat(count("id = ? AND task_key = 'deadlock-once'", id)).isEqualTo(1);
    }

    /**
     * A reschedule or a cancel inside another DataSource's transaction is committed at once, so the index and the
     * {@code cancelled} event follow at once, whatever that transaction does next.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void rescheduleAndCancelInAnotherDataSourcesTransactionReachTheIndexAtOnce(String driver) {
        Counted events = new Counted();
        ConfigurableApplicationContext context = instance(driver, events, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate otherTx = new TransactionTemplate(new DataSourceTransactionManager(
                otherDataSource(driver)));
        long later = queue.schedule("test.ok", "later", Duration.ofHours(3)); // beyond the threshold: not indexed
        long soon = queue.schedule("test.ok", "soon", Duration.ofMinutes(5));
        assertThat(indexed(context, later)).isFalse();
        assertThat(indexedSoon(context, soon)).isTrue();

        otherTx.executeWithoutResult(status -> {
            assertThat(queue.reschedule(later, Instant.now().plus(Duration.ofMinutes(5)))).isTrue();
            assertThat(queue.cancel(soon)).isTrue();
            status.setRollbackOnly();
        });

        assertThat(indexed(context, later)).as("rescheduled into the index").isTrue();
        assertThat(indexed(context, soon)).as("cancelled out of the index").isFalse();
        assertThat(events.cancelledOf("test.ok")).isEqualTo(1);
    }

    /**
     * A JPA transaction on the queue's DataSource is the queue's: its connection is bound the way
     * {@code JpaTransactionManager} binds it ({@link JpaStyleTransactionManager}), and every write goes with it,
     * a call of several statements too (keyed and unkeyed tasks at once) and a cancel. A rollback leaves nothing;
     * a commit indexes and counts the tasks.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void everyWriteGoesWithATransactionBoundTheWayJpaBindsIt(String driver) {
        Counted events = new Counted();
        ConfigurableApplicationContext context = instance(driver, events, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate jpa = new TransactionTemplate(new JpaStyleTransactionManager(
                context.getBean(DataSource.class)));
        long pending = queue.schedule("keep", "x", Duration.ofMinutes(5));
        List<TaskRequest> mixed = List.of(TaskRequest.of("jpa", "plain").delay(Duration.ofMinutes(5)).build(),
                TaskRequest.of("jpa", "keyed").key("k").delay(Duration.ofMinutes(5)).build());

        jdbc.execute("CREATE TABLE orders (id INT PRIMARY KEY)");

        jpa.executeWithoutResult(status -> {
            new JdbcTemplate(context.getBean(DataSource.class)).update("INSERT INTO orders VALUES (1)");
            assertThat(queue.cancel(pending)).isTrue();
            queue.scheduleAll(mixed);
            status.setRollbackOnly();
        });

        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class))
            .as("the transaction's own work, rolled back").isZero();
        assertThat(count("id = ? AND status = 'QUEUED'", pending)).as("cancel rolled back").isEqualTo(1);
        assertThat(count("task_type = 'jpa'")).as("tasks left by a rolled-back transaction").isZero();
        assertThat(events.scheduledOf("jpa") + events.cancelledOf("keep")).isZero();

        List<Long> ids = jpa.execute(status -> {
            List<Long> scheduled = queue.scheduleAll(mixed);
            assertThat(scheduled).noneMatch(id -> indexed(context, id));
            return scheduled;
        });
        assertThat(ids).allMatch(id -> indexedSoon(context, id));
        assertThat(events.scheduledOf("jpa")).isEqualTo(2);
    }

    /**
     * Spring runs {@code @TransactionalEventListener} (after commit) in the transaction's {@code afterCompletion}
     * callbacks, with the finished transaction's connection still bound. Writes made there join nothing: a schedule
     * and a cancel are committed when they return (on that connection they would wait for the auto-commit reset,
     * with the task already in the index), and indexed and counted at once.
     */
    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void writesFromAnAfterCommitListenerAreCommittedWhenTheyReturn(String driver) {
        Counted events = new Counted();
        ConfigurableApplicationContext context = instance(driver, events, "delay.worker.enabled=false");
        DelayQueue queue = context.getBean(DelayQueue.class);
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        long toCancel = queue.schedule("test.ok", "cancel me", Duration.ofMinutes(5));
        assertThat(indexedSoon(context, toCancel)).isTrue(); // before the cancel takes it out
        Map<String, Object> seen = new ConcurrentHashMap<>();

        tx.executeWithoutResult(status -> TransactionSynchronizationManager.registerSynchronization(
                new TransactionSynchronization() {
                    @Override
                    public void afterCompletion(int completion) {
                        long id = queue.schedule("test.ok", "after commit", Duration.ofMinutes(5));
                        seen.put("scheduled, committed", count("id = ?", id));
                        seen.put("scheduled, indexed", indexedSoon(context, id));
                        queue.cancel(toCancel);
                        seen.put("cancelled, committed", count("id = ? AND status = 'CANCELLED'", toCancel));
                    }
                }));

        assertThat(seen).containsOnly(Map.entry("scheduled, committed", 1), Map.entry("scheduled, indexed", true),
                Map.entry("cancelled, committed", 1));
        assertThat(indexed(context, toCancel)).isFalse();
        assertThat(events.cancelledOf("test.ok")).isEqualTo(1);
    }

    private static TaskRequest keyed(String type, String key) {
        return TaskRequest.of(type, key).key(key).delay(Duration.ofHours(2)).build();
    }

    /** A second DataSource on the same database: to Spring another resource, with transactions of its own. */
    private DataSource otherDataSource(String driver) {
        return new DriverManagerDataSource(instances.database().url(driver), instances.database().user(),
                instances.database().password());
    }

    /**
     * Whether the task reaches the index within seconds: a committed task is added off the committing thread
     * ({@code IndexWrites}), within milliseconds, whatever the caller's thread does meanwhile.
     */
    private static boolean indexedSoon(ConfigurableApplicationContext context, long id) {
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> indexed(context, id));
            return true;
        }
        catch (ConditionTimeoutException ex) {
            return false;
        }
    }

    private static boolean indexed(ConfigurableApplicationContext context, long id) {
        RedisTimeIndex index = (RedisTimeIndex) context.getBean(TimeIndex.class);
        StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
        for (int shard = 0; shard < index.shards(); shard++) {
            if (redis.opsForZSet().score(IndexAccess.key(index, shard), Long.toString(id)) != null) {
                return true;
            }
        }
        return false;
    }

    private static <T> T call(ExecutorService executor, java.util.concurrent.Callable<T> work) {
        try {
            return executor.submit(work).get(30, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Counts the events the meters count, by task type. */
    static final class Counted implements TaskEvents {

        private final Map<String, AtomicInteger> scheduled = new ConcurrentHashMap<>();

        private final Map<String, AtomicInteger> cancelled = new ConcurrentHashMap<>();

        @Override
        public void scheduled(String type) {
            scheduled.computeIfAbsent(type, t -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void cancelled(String type) {
            cancelled.computeIfAbsent(type, t -> new AtomicInteger()).incrementAndGet();
        }

        int scheduledOf(String type) {
            return scheduled.getOrDefault(type, new AtomicInteger()).get();
        }

        int cancelledOf(String type) {
            return cancelled.getOrDefault(type, new AtomicInteger()).get();
        }
    }

    private void refusePayload(String payload) {
        jdbc.execute("CREATE TRIGGER refuse_payload BEFORE INSERT ON delay_task FOR EACH ROW "
                + "BEGIN IF NEW.payload = '" + payload + "' THEN "
                + "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by a trigger'; END IF; END");
    }

    private static void meet(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
