package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.test.TaskStoreContract;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** {@link TaskStoreContract} on the real task table, on the test MariaDB or MySQL. */
class JdbcTaskStoreContractIT extends TaskStoreContract {

    private static final String TABLE = "delay_task";

    private static HikariDataSource dataSource;

    private static JdbcTemplate jdbc;

    /** Each holds a claim connection of its own until closed. */
    private final List<JdbcTaskStore> stores = new ArrayList<>();

    @BeforeAll
    static void createTable() {
        TestDatabase db = TestServices.newDatabase();
        dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(db.url());
        dataSource.setUsername(db.user());
        dataSource.setPassword(db.password());
        dataSource.setMaximumPoolSize(16);
        new TaskSchema(dataSource, TABLE, "delay_schema_history").migrate();
        jdbc = new JdbcTemplate(dataSource);
    }

    @AfterAll
    static void closeDataSource() {
        dataSource.close();
    }

    @Override
    protected TaskStore createStore() {
        jdbc.execute("TRUNCATE TABLE " + TABLE);
        jdbc.execute("TRUNCATE TABLE " + TABLE + "_type_limits"); // a test's windows of starts must not be the next's
        return newStore();
    }

    @Override
    protected TaskStore anotherInstance() {
        return newStore();
    }

    @Override
    protected PlatformTransactionManager callerTransactions() {
        return new DataSourceTransactionManager(dataSource);
    }

    private JdbcTaskStore newStore() {
        JdbcTaskStore created = new JdbcTaskStore(dataSource, TABLE);
        stores.add(created);
        return created;
    }

    @AfterEach
    void closeStores() {
        stores.forEach(JdbcTaskStore::close);
        stores.clear();
    }

    /** The named lock every instance's purge takes, held on a connection of the test's. */
    @Override
    protected AutoCloseable purgeElsewhere() throws SQLException {
        Connection holder = dataSource.getConnection();
        String lock = NamedLock.name("delay_purge", holder.getCatalog(), TableNames.quoted(TABLE));
        assertThat(NamedLock.acquire(holder, lock, 0)).isTrue();
        return () -> {
            NamedLock.release(holder, lock);
            holder.close();
        };
    }

    /**
     * A caller's REPEATABLE READ transaction inserts keys another instance committed after the transaction's snapshot,
     * alone and among new keys: it is told they existed, and that it created only the new ones.
     */
    /** Written on a connection of its own, the success would commit apart from the handler's work: refused. */
    @Test
    void aSuccessOutsideATransactionOfItsDataSourceIsRefused() {
        long id = insert(task("t", null, T0, TaskStatus.QUEUED, null));
        ClaimedTask claimed = store.claimIds(List.of(id), T0, lease("a", T0 + 30_000)).get(0);
        assertThatIllegalStateException().isThrownBy(() -> store.succeedInCallerTransaction(claimed.claimId(), T0))
            .withMessageContaining("holds no connection of the queue's DataSource");
        assertThat(store.find(id)).map(TaskView::status).contains(TaskStatus.RUNNING);
    }

    @Test
    void aKeyCommittedAfterTheCallersSnapshotIsFoundNotCreated() throws Exception {
        TaskStore elsewhere = anotherInstance();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
            List<List<InsertedTask>> answers = tx.execute(status -> {
                store.find("t", "no-such-key"); // the snapshot
                get(other.submit(() -> elsewhere.insert(List.of(keyed("alone"), keyed("b")), T0)));
                return List.of(store.insert(List.of(keyed("alone")), T0),
                        store.insert(List.of(keyed("a"), keyed("b"), keyed("c")), T0));
            });

            assertThat(answers.get(0)).extracting(InsertedTask::created).containsExactly(false);
            assertThat(answers.get(0).get(0).id()).isEqualTo(store.find("t", "alone").orElseThrow().id());
            assertThat(answers.get(1)).extracting(InsertedTask::created).containsExactly(true, false, true);
            assertThat(answers.get(1)).extracting(InsertedTask::id).containsExactly(
                    store.find("t", "a").orElseThrow().id(), store.find("t", "b").orElseThrow().id(),
                    store.find("t", "c").orElseThrow().id());
        }
        finally {
            other.shutdownNow();
        }
    }

    /**
     * Outside a transaction a key can be committed by another instance between the look-up and the insert of a
     * multi-row write (a trigger holds the write back for that): only the keys this call inserted are created, in
     * a write of keyed rows alone (one statement, autocommitted) and in one with an unkeyed row too (a transaction of
     * its own).
     */
    @Test
    void aKeyCommittedBetweenTheLookUpAndTheInsertIsFoundNotCreated() throws Exception {
        jdbc.execute("""
                CREATE TRIGGER slow_key BEFORE INSERT ON delay_task FOR EACH ROW
                BEGIN
                  IF NEW.task_key LIKE 'slow-%' THEN
                    DO SLEEP(1);
                  END IF;
                END""");
        TaskStore elsewhere = anotherInstance();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (boolean withUnkeyed : new boolean[] { false, true }) {
                String suffix = withUnkeyed ? "-mixed" : "-keyed";
                List<NewTask> tasks = new ArrayList<>(List.of(keyed("slow" + suffix), keyed("taken" + suffix),
                        keyed("z" + suffix)));
                if (withUnkeyed) {
                    tasks.add(0, task("t", null, T0, TaskStatus.SCHEDULED, null));
                }
                Future<List<InsertedTask>> slow = pool.submit(() -> store.insert(tasks, T0));
                Thread.sleep(300); // the slow write has looked its keys up and is inserting
                InsertedTask taken = get(pool.submit(() -> elsewhere.insert(List.of(keyed("taken" + suffix)), T0)))
                    .get(0);
                List<InsertedTask> answer = get(slow);

                assertThat(taken.created()).isTrue();
                List<InsertedTask> keyedAnswers = answer.subList(withUnkeyed ? 1 : 0, answer.size());
                assertThat(keyedAnswers).as(suffix).extracting(InsertedTask::created)
                    .containsExactly(true, false, true);
                assertThat(keyedAnswers.get(1).id()).isEqualTo(taken.id());
                assertThat(keyedAnswers.get(0).id()).isEqualTo(store.find("t", "slow" + suffix).orElseThrow().id());
                assertThat(keyedAnswers.get(2).id()).isEqualTo(store.find("t", "z" + suffix).orElseThrow().id());
            }
        }
        finally {
            pool.shutdownNow();
            jdbc.execute("DROP TRIGGER slow_key");
        }
    }

    private static NewTask keyed(String key) {
        return task("t", key, T0 + 1_000, TaskStatus.SCHEDULED, null);
    }

    private static <T> T get(Future<T> future) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** The test database runs on this host, on its clock. */
    @Override
    protected long expectedStoreTime() {
        return System.currentTimeMillis();
    }
}
