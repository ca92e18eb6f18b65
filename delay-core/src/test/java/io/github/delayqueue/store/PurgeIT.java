package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.api.TaskStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The purge deletes a large backlog of finished tasks without making the queue's own writes wait: cancels,
 * reschedules and completions of tasks whose rows sit in the same index ranges go through while it runs. (It used to
 * scan and lock the whole status range in REPEATABLE READ, so a cancel waited for the whole statement.)
 */
@Tag("reliability")
class PurgeIT {

    private static final int FINISHED = 300_000;

    private static final long DAY = 86_400_000L;

    private static final String INDEX = "`delay_task_status_type_due`";

    private static HikariDataSource dataSource;

    private static JdbcTaskStore store;

    private static JdbcTemplate jdbc;

    private static final long now = System.currentTimeMillis();

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

    /** {@code count} rows in {@code status}, due over twenty days around now, last changed {@code changedAt}. */
    private static void load(int count, String status, long changedAt) {
        jdbc.update("INSERT INTO delay_task (task_type, payload, due_at, status, created_at, updated_at) "
                + "SELECT 'purge', '\"p\"', ? + n * ?, ?, ?, ? FROM " + NumberRows.upTo(6) + " WHERE n < ?",
                now - 10 * DAY, 20 * DAY / count, status, changedAt, changedAt, count);
    }

    @Test
    void aLongPurgeNeverMakesCancelsReschedulesOrCompletionsWait() throws Exception {
        load(FINISHED, "CANCELLED", now - 2 * DAY);
        load(FINISHED / 3, "SUCCEEDED", now - 2 * DAY);
        List<Long> pending = jdbc.queryForList("SELECT id FROM delay_task WHERE status = 'CANCELLED' ORDER BY id "
                + "LIMIT 400", Long.class);
        // tasks still pending or running, with due times inside the purged ranges
        jdbc.update("UPDATE delay_task SET status = 'QUEUED', updated_at = ? WHERE id IN (" + join(pending.subList(0,
                200)) + ")", now);
        jdbc.update("UPDATE delay_task SET status = 'RUNNING', owner = 'w', lease_until = ?, claims = 1, "
                + "updated_at = ? WHERE id IN (" + join(pending.subList(200, 400)) + ")", now + 60_000, now);

        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            long purgeStart = System.nanoTime();
            // one statement for the whole backlog, so the purge runs for seconds
            Future<Long> purge = threads.submit(() -> store.purge(Map.of(TaskStatus.CANCELLED, now - DAY,
                    TaskStatus.SUCCEEDED, now - DAY), FINISHED * 2, 120_000));
            Thread.sleep(300);
            Future<Long> slowest = threads.submit(() -> {
                long worst = 0;
                for (int i = 0; i < 100; i++) {
                    long start = System.nanoTime();
                    if (i % 2 == 0) {
                        assertThat(store.cancel(pending.get(i), now)).isPresent();
                    }
                    else {
                        assertThat(store.reschedule(pending.get(i), now + DAY, TaskStatus.SCHEDULED, now)).isTrue();
                    }
                    store.finish(List.of(new Completion.Succeeded(pending.get(200 + i), 1)), now);
                    worst = Math.max(worst, System.nanoTime() - start);
                }
                return TimeUnit.NANOSECONDS.toMillis(worst);
            });
            long worstMillis = slowest.get(120, TimeUnit.SECONDS);
            boolean purgeStillRan = !purge.isDone();
            long deleted = purge.get(120, TimeUnit.SECONDS);
            long purgeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - purgeStart);

            assertThat(deleted).isEqualTo(FINISHED - 400 + FINISHED / 3);
            assertThat(purgeStillRan).as("the writes finished while the purge still ran (it took %d ms)", purgeMillis)
                .isTrue();
            assertThat(worstMillis).as("slowest cancel/reschedule + completion during a %d ms purge", purgeMillis)
                .isLessThan(1_000);
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                    Integer.class)).isEqualTo(100);
        }
        finally {
            threads.shutdownNow();
        }
    }

    /**
     * Each statement of the purge is planned on an index that stops at the cutoff. A single {@code DELETE ... ORDER BY
     * updated_at LIMIT} was planned by MariaDB on {@code (status, due_at)} with a filesort of every finished row: a
     * minute per statement at 10 million rows in the soak benchmark, so the purge fell behind at any rate.
     */
    @Test
    void everyStatementOfThePurgeReadsAnIndexThatStopsAtTheCutoff() {
        long changedAt = now - 3 * DAY - 7;
        load(20_000, "SUCCEEDED", changedAt);
        try {
            jdbc.execute("ANALYZE TABLE delay_task");
            String candidates = TaskSql.PURGE_CANDIDATES.formatted("`delay_task`");
            Map<String, Object> read = plan(candidates, "SUCCEEDED", now - DAY, 1_000);
            assertThat(read).as("the batch's ids, from the (status, updated_at) index")
                .containsEntry("key", "delay_task_status_updated");
            assertThat(String.valueOf(read.get("Extra"))).doesNotContain("filesort");
            String delete = TaskSql.forIds(TaskSql.PURGE, "`delay_task`", 3);
            assertThat(plan(delete, 1L, 2L, 3L, "SUCCEEDED", now - DAY)).containsEntry("key", "PRIMARY");
        }
        finally {
            jdbc.update("DELETE FROM delay_task WHERE updated_at = ?", changedAt);
        }
    }

    /**
     * An idle jdbc source asks for the next due time of the types it claims. As {@code MIN(due_at)} with a type
     * condition, both servers planned it as a scan of the whole table (every future task read at every poll); as
     * {@code ORDER BY due_at LIMIT 1} on the {@code (status, due_at)} index it walked every row of other types due
     * before the first of its own. It must read the first entry of each type's {@code (status, task_type, due_at)}
     * range, without a sort of the rows (the union's sort is of one row per type).
     */
    @Test
    void theNextDueTimeOfSomeTypesReadsTheFirstEntryOfEachTypesRange() {
        long changedAt = now - 3 * DAY - 11;
        load(20_000, "SCHEDULED", changedAt);
        try {
            jdbc.execute("ANALYZE TABLE delay_task");
            String nextDue = TaskSql.perType(TaskSql.NEXT_DUE_OF_TYPES, TaskSql.NEXT_DUE_OF_TYPE, "`delay_task`",
                    INDEX, 2);
            List<Map<String, Object>> parts = plans(nextDue, "SCHEDULED", "purge", "SCHEDULED", "other").stream()
                .filter(part -> part.get("table") != null && part.get("table").toString().equals("delay_task"))
                .toList();
            assertThat(parts).as("one range per type").hasSize(2).allSatisfy(part -> {
                assertThat(part).containsEntry("key", "delay_task_status_type_due");
                assertThat(String.valueOf(part.get("Extra"))).doesNotContain("filesort");
            });
            String oneType = TaskSql.perType(TaskSql.NEXT_DUE_OF_TYPES, TaskSql.NEXT_DUE_OF_TYPE, "`delay_task`",
                    INDEX, 1);
            Map<String, Object> alone = plan(oneType, "SCHEDULED", "purge");
            assertThat(alone).containsEntry("key", "delay_task_status_type_due");
            assertThat(String.valueOf(alone.get("Extra"))).doesNotContain("filesort");
        }
        finally {
            jdbc.update("DELETE FROM delay_task WHERE updated_at = ?", changedAt);
        }
    }

    /**
     * The claim of some types reads one range of {@code (status, task_type, due_at)} per type, in due order: no
     * filesort in any part, whatever the rows of other types (20,000 rows of one of them, none of the other).
     */
    @Test
    void theClaimOfSomeTypesReadsOneRangePerType() {
        long changedAt = now - 3 * DAY - 13;
        load(20_000, "QUEUED", changedAt);
        try {
            jdbc.execute("ANALYZE TABLE delay_task");
            String claim = TaskSql.perType(TaskSql.SELECT_DUE_OF_TYPES_FOR_CLAIM, TaskSql.SELECT_DUE_OF_TYPE_FOR_CLAIM,
                    "`delay_task`", INDEX, 2);
            List<Map<String, Object>> parts = plans(claim, "QUEUED", "purge", now, 500, "QUEUED", "other", now, 500,
                    500).stream()
                .filter(part -> part.get("table") != null && part.get("table").toString().equals("delay_task"))
                .toList();
            assertThat(parts).as("one range per type").hasSize(2).allSatisfy(part -> {
                assertThat(part).containsEntry("key", "delay_task_status_type_due");
                assertThat(String.valueOf(part.get("Extra"))).doesNotContain("filesort");
            });
        }
        finally {
            jdbc.update("DELETE FROM delay_task WHERE updated_at = ?", changedAt);
        }
    }

    /**
     * The statements without types keep the {@code (status, due_at)} index (the migration, the sweep of every type)
     * or the {@code (status, updated_at)} one (the purge): V6's {@code (status, task_type, due_at)} cannot give due
     * order across types, so neither is redundant.
     */
    @Test
    void theStatementsWithoutTypesKeepTheirIndexes() {
        long changedAt = now - 3 * DAY - 17;
        load(20_000, "SCHEDULED", changedAt);
        try {
            jdbc.execute("ANALYZE TABLE delay_task");
            assertThat(plan(TaskSql.SELECT_FOR_MIGRATION.formatted("`delay_task`"), now, 1_000))
                .containsEntry("key", "delay_task_status_due");
            assertThat(plan(TaskSql.SELECT_DUE_FOR_CLAIM.formatted("`delay_task`"), "SCHEDULED", now, 500))
                .containsEntry("key", "delay_task_status_due");
            assertThat(plan(TaskSql.SELECT_PENDING_PAGE.formatted("`delay_task`"), "SCHEDULED", 0L, 0L, 0L, 500))
                .containsEntry("key", "delay_task_status_due");
        }
        finally {
            jdbc.update("DELETE FROM delay_task WHERE updated_at = ?", changedAt);
        }
    }

    private static Map<String, Object> plan(String sql, Object... args) {
        return plans(sql, args).get(0);
    }

    private static List<Map<String, Object>> plans(String sql, Object... args) {
        return jdbc.queryForList("EXPLAIN " + sql, args);
    }

    private static String join(List<Long> ids) {
        List<String> parts = new ArrayList<>();
        ids.forEach(id -> parts.add(Long.toString(id)));
        return String.join(",", parts);
    }
}
