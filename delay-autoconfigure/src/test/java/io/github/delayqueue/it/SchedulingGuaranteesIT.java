package io.github.delayqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.OutcomeUnknownException;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.test.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a {@code schedule()} call promises, under concurrency, inside and outside transactions, with both JDBC drivers:
 * when it returns each task exists once; when it throws, nothing of it was stored, unless it says the outcome is
 * unknown. Database failures are made by triggers on the real table, so the real statements fail where they would.
 */
@Tag("reliability")
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
        String direct = instances.database().url(driver);
        java.net.URI uri = java.net.URI.create(direct.substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(uri.getHost(), uri.getPort())) {
            String proxied = direct.replace(uri.getHost() + ":" + uri.getPort(), "127.0.0.1:" + proxy.port());
            DelayQueue queue = instances.start("delay.worker.enabled=false", "spring.datasource.url=" + proxied)
                .getBean(DelayQueue.class);
            jdbc.execute("""
                    CREATE TRIGGER slow_write BEFORE INSERT ON delay_task FOR EACH ROW
                    BEGIN
                      IF NEW.payload = '"slow"' THEN
                        DO SLEEP(1.5);
                      END IF;
                    END""");
            Thread killer = new Thread(() -> {
                sleep(500);
                proxy.dropConnections(); // mid-statement: the server goes on and commits it
            });
            killer.start();

            assertThatThrownBy(() -> queue.schedule("slow", "slow", Duration.ofHours(1)))
                .isInstanceOf(OutcomeUnknownException.class)
                .hasMessageContaining("may or may not")
                .hasMessageContaining("key");
            killer.join();
            await().atMost(10, TimeUnit.SECONDS).until(() -> count("task_type = 'slow'") == 1);
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
