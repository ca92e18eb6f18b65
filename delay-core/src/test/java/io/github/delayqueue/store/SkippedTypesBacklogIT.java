package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.api.TaskStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim of some types reads the rows of those types, not the overdue backlog of the types it leaves out (a paused
 * type, a type at its limit, another application's types on the same table). Read from the server's own counters of
 * the rows a session read ({@code Handler_read_%}), on the very connection the claims run on: deterministic, unlike
 * timing. On the {@code (status, due_at)} index with {@code task_type IN (...)} a claim of 300 read every skipped row
 * due before its own (over 60,000 here); one range of {@code (status, task_type, due_at)} per type reads about what it
 * claims.
 */
class SkippedTypesBacklogIT {

    private static final int SKIPPED = 60_000;

    private static final int OWN = 1_000;

    private static final int CLAIM = 300;

    private static final long DAY = 86_400_000L;

    private static final long now = System.currentTimeMillis();

    private static HikariDataSource pool;

    private static JdbcTemplate jdbc;

    @BeforeAll
    static void loadTheBacklog() {
        pool = TaskTablePool.create();
        jdbc = new JdbcTemplate(pool);
        // the skipped type's backlog falls due first, then both claimable types, one row of each a millisecond
        load("skipped", SKIPPED, now - 2 * DAY, "QUEUED");
        load("mine", OWN, now - DAY, "QUEUED");
        load("also.mine", OWN, now - DAY, "QUEUED");
        load("skipped", SKIPPED, now + DAY, "SCHEDULED");
        load("mine", OWN, now + 2 * DAY, "SCHEDULED");
        jdbc.execute("ANALYZE TABLE delay_task");
    }

    @AfterAll
    static void close() {
        pool.close();
    }

    /** {@code count} rows of {@code type} in {@code status}, due a millisecond apart from {@code firstDue}. */
    private static void load(String type, int count, long firstDue, String status) {
        jdbc.update("INSERT INTO delay_task (task_type, payload, due_at, status, created_at, updated_at) "
                + "SELECT ?, '\"p\"', ? + n, ?, ?, ? FROM " + NumberRows.upTo(5) + " WHERE n < ?", type, firstDue,
                status, now - 3 * DAY, now - 3 * DAY, count);
    }

    @Test
    void aClaimOfSomeTypesReadsAboutWhatItClaimsNotTheSkippedBacklog() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            SingleConnectionDataSource one = new SingleConnectionDataSource(connection, true);
            JdbcTaskStore store = new JdbcTaskStore(one, TaskTablePool.TABLE);
            JdbcTemplate session = new JdbcTemplate(one);

            Reads claim = Reads.of(session, () -> store.claimDue(TaskStatus.QUEUED, now, CLAIM,
                    Set.of("mine", "also.mine"), new Lease("scan", now + 60_000, now)));
            @SuppressWarnings("unchecked")
            List<ClaimedTask> claimed = (List<ClaimedTask>) claim.result();

            assertThat(claimed).hasSize(CLAIM).allMatch(task -> !task.type().equals("skipped"));
            assertThat(claimed).extracting(ClaimedTask::dueAt).isSorted();
            assertThat(claimed).as("the oldest of both types: half of each")
                .filteredOn(task -> task.type().equals("mine")).hasSize(CLAIM / 2);
            // each type's range up to the claim's size, the union's rows and their sort: a few times the claim, at most
            assertThat(claim.rows()).as("rows read by a claim of %d behind %d overdue rows of a skipped type: %s",
                    CLAIM, SKIPPED, claim.counters()).isLessThan(20L * CLAIM);

            Reads next = Reads.of(session, () -> store.nextDue(TaskStatus.QUEUED, Set.of("mine", "also.mine")));
            assertThat(next.result()).isEqualTo(OptionalLong.of(claimed.get(CLAIM - 1).dueAt() + 1));
            assertThat(next.rows()).as("rows read for the next due time of two types: %s", next.counters())
                .isLessThan(20L);
            Reads later = Reads.of(session, () -> store.nextDue(TaskStatus.SCHEDULED, Set.of("mine")));
            assertThat(later.result()).isEqualTo(OptionalLong.of(now + 2 * DAY));
            assertThat(later.rows()).as("rows read for the next due time of one type: %s", later.counters())
                .isLessThan(20L);
        }
        finally {
            jdbc.update("UPDATE delay_task SET status = 'QUEUED', owner = NULL, lease_until = NULL "
                    + "WHERE status = 'RUNNING'");
        }
    }

    /** Each type's part stops at its own cap (cluster-wide limits give some types less than the claim's size). */
    @Test
    void eachTypeTakesNoMoreThanItsCap() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            SingleConnectionDataSource one = new SingleConnectionDataSource(connection, true);
            TaskClaims claims = new TaskClaims(new ClaimConnection(one, Duration.ofSeconds(30)), new JdbcTemplate(one),
                    "`delay_task`", "`delay_task_status_type_due`", "`delay_task_type_limits`");
            Map<String, Integer> caps = new LinkedHashMap<>();
            caps.put("mine", 20);
            caps.put("also.mine", CLAIM);
            caps.put("skipped", 0);

            List<ClaimedTask> claimed = claims.due(TaskStatus.QUEUED, now, CLAIM, caps,
                    new Lease("caps", now + 60_000, now));

            Map<String, Integer> byType = new HashMap<>();
            claimed.forEach(task -> byType.merge(task.type(), 1, Integer::sum));
            assertThat(byType).containsOnly(Map.entry("mine", 20), Map.entry("also.mine", CLAIM - 20));
            assertThat(claimed).extracting(ClaimedTask::dueAt).isSorted();
        }
        finally {
            jdbc.update("UPDATE delay_task SET status = 'QUEUED', owner = NULL, lease_until = NULL "
                    + "WHERE status = 'RUNNING'");
        }
    }

    /** Rows another claimer holds are skipped, and the claim reads on in each type's range for others. */
    @Test
    void rowsLockedByAnotherClaimerAreSkippedAndTheClaimStillFills() throws SQLException {
        try (Connection other = pool.getConnection(); Connection connection = pool.getConnection()) {
            other.setAutoCommit(false);
            other.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            List<Long> held = new JdbcTemplate(new SingleConnectionDataSource(other, true)).queryForList(
                    "SELECT id FROM delay_task WHERE status = 'QUEUED' AND task_type = 'mine' ORDER BY due_at "
                            + "LIMIT 200 FOR UPDATE", Long.class);
            JdbcTaskStore store = new JdbcTaskStore(new SingleConnectionDataSource(connection, true),
                    TaskTablePool.TABLE);

            List<ClaimedTask> claimed = store.claimDue(TaskStatus.QUEUED, now, CLAIM, Set.of("mine", "also.mine"),
                    new Lease("beside", now + 60_000, now));
            other.rollback();

            assertThat(claimed).hasSize(CLAIM).extracting(ClaimedTask::id).doesNotContainAnyElementsOf(held);
        }
        finally {
            jdbc.update("UPDATE delay_task SET status = 'QUEUED', owner = NULL, lease_until = NULL "
                    + "WHERE status = 'RUNNING'");
        }
    }

    /** What a piece of work returned, and how many rows its session read meanwhile, by counter. */
    private record Reads(Object result, Map<String, Long> counters) {

        static Reads of(JdbcTemplate session, Supplier<?> work) {
            Map<String, Long> before = counters(session);
            Object result = work.get();
            Map<String, Long> after = counters(session);
            Map<String, Long> delta = new LinkedHashMap<>();
            after.forEach((name, value) -> delta.put(name, value - before.getOrDefault(name, 0L)));
            return new Reads(result, delta);
        }

        long rows() {
            return counters.values().stream().mapToLong(Long::longValue).sum();
        }

        private static Map<String, Long> counters(JdbcTemplate session) {
            Map<String, Long> counters = new LinkedHashMap<>();
            session.query("SHOW SESSION STATUS LIKE 'Handler_read%'",
                    rs -> {
                        counters.put(rs.getString(1), rs.getLong(2));
                    });
            return counters;
        }
    }
}
