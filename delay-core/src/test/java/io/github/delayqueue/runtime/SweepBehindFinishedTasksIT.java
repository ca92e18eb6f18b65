package io.github.delayqueue.runtime;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.NumberRows;
import io.github.delayqueue.store.TableNames;
import io.github.delayqueue.store.TaskSchema;
import io.github.delayqueue.store.TaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hybrid sweep, once a second on the dispatcher's round, costs the database about what it finds, not what the
 * tasks that just left the queue left behind. Under a steady rate every task of the last seconds leaves a
 * delete-marked entry in the claim's index until InnoDB purges it, and a locking claim of a range with no live row
 * walks on past the range over all of them (a claimed type's range into the next type's). Counted by the server's
 * page reads ({@code Innodb_buffer_pool_read_requests}), deterministic, unlike timing; an open snapshot keeps InnoDB
 * from purging the entries meanwhile, as a busy server's purge lag does. The index is the in-memory one, empty: the
 * sweep's database reads are what is looked at.
 */
class SweepBehindFinishedTasksIT {

    private static final int FINISHED = 50_000;

    private static final long HOUR = 3_600_000L;

    private static final String TABLE = "delay_task";

    @Test
    void aSweepReadsAboutWhatItFindsNotTheTasksThatJustLeftTheQueue() throws Exception {
        DataSource dataSource = TestServices.newDatabase().dataSource();
        new TaskSchema(dataSource, TABLE, TableNames.defaultHistoryTable(TABLE)).migrate();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        long now = System.currentTimeMillis();
        // the claimable type's range comes first in the index ('t' < 't.next'), the other type's right after it
        load(jdbc, "t.next", FINISHED, now - 2 * HOUR, now);
        load(jdbc, "t", 1, now - HOUR, now);
        long lost = jdbc.queryForObject("SELECT id FROM delay_task WHERE task_type = 't'", Long.class);
        TaskStore store = TaskStore.jdbc(dataSource, TABLE, Duration.ofSeconds(30));
        IndexTaskSource source = new IndexTaskSource(new Indexer(new InMemoryTimeIndex(1), TaskEvents.NONE), store,
                new ClaimTerms("me", Duration.ofSeconds(30)), TaskEvents.NONE, IndexTaskSourceTest.settings(),
                () -> now, Handlers.claiming("t"));

        try (Connection snapshot = dataSource.getConnection(); Statement statement = snapshot.createStatement();
                AutoCloseable closeStore = (AutoCloseable) store) {
            statement.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            statement.executeQuery("SELECT COUNT(*) FROM delay_task").close();
            // the other type's tasks leave the queue: each leaves a delete-marked (QUEUED, t.next, due) entry
            jdbc.update("UPDATE delay_task SET status = 'SUCCEEDED' WHERE task_type = 't.next'");

            long before = pageReads(jdbc);
            FetchResult result = source.fetch(now, 100);
            long reads = pageReads(jdbc) - before;
            statement.execute("ROLLBACK");
            System.out.printf("[sweep] %d page reads behind %d delete-marked entries%n", reads, FINISHED);

            assertThat(result.tasks()).as("the row the index lost, swept").extracting(ClaimedTask::id)
                .containsExactly(lost);
            assertThat(reads).as("page reads of a sweep behind %d delete-marked entries of another type", FINISHED)
                .isLessThan(FINISHED / 5);
        }
    }

    /** {@code count} queued rows of {@code type}, due a millisecond apart from {@code firstDue}. */
    private static void load(JdbcTemplate jdbc, String type, int count, long firstDue, long now) {
        jdbc.update("INSERT INTO delay_task (task_type, payload, due_at, status, created_at, updated_at) "
                + "SELECT ?, '\"p\"', ? + n, 'QUEUED', ?, ? FROM " + NumberRows.upTo(5) + " WHERE n < ?", type,
                firstDue, now, now, count);
    }

    private static long pageReads(JdbcTemplate jdbc) {
        Map<String, Object> row = jdbc.queryForMap("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'");
        return Long.parseLong(String.valueOf(row.get("Value")));
    }
}
