package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The queue's own Flyway creates the task table on the real database, once, however many instances start. */
class TaskSchemaIT {

    /** The migrations in {@code db/delay/migration}. */
    private static final int MIGRATIONS = 7;

    @Test
    void createsTheTaskTableWithItsColumnsAndIndexes() {
        TestDatabase db = TestServices.newDatabase();
        DataSource dataSource = db.dataSource();
        assertThat(new TaskSchema(dataSource, "delay_task", "delay_schema_history").migrate()).isEqualTo(MIGRATIONS);

        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        List<String> columns = jdbc.queryForList("SELECT column_name FROM information_schema.columns "
                + "WHERE table_schema = ? AND table_name = 'delay_task' ORDER BY ordinal_position", String.class,
                db.name());
        assertThat(columns).containsExactly("id", "task_type", "task_key", "live_key", "waiting_key", "payload",
                "due_at", "status", "attempts", "max_attempts", "claims", "owner", "lease_until", "started_at",
                "last_error", "created_at", "updated_at", "trace_context", "error_history");
        List<String> statusIndex = jdbc.queryForList("SELECT column_name FROM information_schema.statistics "
                + "WHERE table_schema = ? AND table_name = 'delay_task' AND index_name = 'delay_task_status_due' "
                + "ORDER BY seq_in_index", String.class, db.name());
        assertThat(statusIndex).containsExactly("status", "due_at");
        List<String> typeIndex = jdbc.queryForList("SELECT column_name FROM information_schema.statistics "
                + "WHERE table_schema = ? AND table_name = 'delay_task' AND index_name = 'delay_task_status_type_due' "
                + "ORDER BY seq_in_index", String.class, db.name());
        assertThat(typeIndex).as("a claim reads one range per type it claims").containsExactly("status", "task_type",
                "due_at");
        List<String> uniqueKey = jdbc.queryForList("SELECT column_name FROM information_schema.statistics "
                + "WHERE table_schema = ? AND table_name = 'delay_task' AND index_name = 'delay_task_live_key' "
                + "AND non_unique = 0 ORDER BY seq_in_index", String.class, db.name());
        assertThat(uniqueKey).as("a key names one live task at a time").containsExactly("task_type", "live_key");
        List<String> keyIndex = jdbc.queryForList("SELECT column_name FROM information_schema.statistics "
                + "WHERE table_schema = ? AND table_name = 'delay_task' AND index_name = 'delay_task_type_key' "
                + "AND non_unique = 1 ORDER BY seq_in_index", String.class, db.name());
        assertThat(keyIndex).as("a key's history, finished tasks included").containsExactly("task_type", "task_key");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_schema_history WHERE success = 1 AND version = '1'",
                Integer.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_schema_history WHERE success = 1 AND version = '2'",
                Integer.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_schema_history WHERE success = 1 AND version = '3'",
                Integer.class)).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT column_name FROM information_schema.columns WHERE table_schema = ? "
                + "AND table_name = 'delay_task_paused_types' ORDER BY ordinal_position", String.class, db.name()))
            .as("the types paused on every instance").containsExactly("task_type", "paused_at");
    }

    @Test
    void applyingItAgainChangesNothing() {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        new TaskSchema(dataSource, "delay_task", "delay_schema_history").migrate();
        new JdbcTemplate(dataSource).update("INSERT INTO delay_task (task_type, payload, due_at, status, created_at, "
                + "updated_at) VALUES ('t', 'null', 1, 'SCHEDULED', 1, 1)");

        assertThat(new TaskSchema(dataSource, "delay_task", "delay_schema_history").migrate()).isZero();
        assertThat(new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM delay_task", Integer.class))
            .isEqualTo(1);
    }

    @Test
    void instancesStartingTogetherApplyItOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            for (int round = 0; round < 5; round++) {
                TestDatabase db = TestServices.newDatabase();
                List<Callable<Integer>> starts = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    starts.add(() -> new TaskSchema(db.dataSource(), "delay_task", "delay_schema_history").migrate());
                }
                int applied = 0;
                for (Future<Integer> result : pool.invokeAll(starts)) {
                    applied += result.get();
                }
                assertThat(applied).as("migrations applied in round %d", round).isEqualTo(MIGRATIONS);
            }
        }
        finally {
            pool.shutdown();
        }
    }

    @Test
    void aHistoryTableThatRecordsAnotherTaskTableFailsNamingBoth() {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        new TaskSchema(dataSource, "orders_tasks", "shared_history").migrate();

        assertThatIllegalStateException()
            .isThrownBy(() -> new TaskSchema(dataSource, "billing_tasks", "shared_history").migrate())
            .withMessageContaining("'billing_tasks'")
            .withMessageContaining("'shared_history'")
            .withMessageContaining("billing_tasks_schema_history");
    }

    @Test
    void reservedWordsAndTheLongestNamesAreQuotedAndFit() {
        TestDatabase db = TestServices.newDatabase();
        String longest = "t".repeat(TableNames.MAX_TASK_TABLE_LENGTH);
        String longestHistory = "h".repeat(TableNames.MAX_IDENTIFIER_LENGTH);
        assertThat(new TaskSchema(db.dataSource(), "order", "select").migrate()).isEqualTo(MIGRATIONS);
        assertThat(new TaskSchema(db.dataSource(), longest, longestHistory).migrate()).isEqualTo(MIGRATIONS);

        JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
        assertThat(jdbc.queryForList("SELECT index_name FROM information_schema.statistics WHERE table_schema = ? "
                + "AND table_name = ?", String.class, db.name(), longest))
            .contains(longest + "_type_key", longest + "_live_key", longest + "_waiting_key",
                    longest + "_status_due", longest + "_status_type_due");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM `order`", Integer.class)).isZero();
    }

    @Test
    void anApplicationSchemaWithTablesOfItsOwnStillGetsTheTaskTable() {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        new JdbcTemplate(dataSource).execute("CREATE TABLE orders (id BIGINT PRIMARY KEY)");

        new TaskSchema(dataSource, "shop_tasks", "shop_tasks_history").migrate();

        assertThat(new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM shop_tasks", Integer.class))
            .isZero();
    }
}
