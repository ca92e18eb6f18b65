package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the gauges, the health indicator and the endpoint read costs the same whatever the table holds: the rows the
 * server reads for an answer ({@code Handler_read_*} of the session) do not grow with the finished tasks, and counts
 * past what is counted one by one are the database's estimates, marked as such. (They used to count every row, and
 * group the whole table by type.)
 */
class JdbcTaskInspectorIT {

    private static final long DAY = 86_400_000L;

    private static void load(JdbcTemplate jdbc, int count, String status, long dueFrom) {
        jdbc.update("INSERT INTO delay_task (task_type, payload, due_at, status, created_at, updated_at) "
                + "SELECT CONCAT('type-', n % 3), '\"p\"', ? + n, ?, ?, ? FROM " + NumberRows.upTo(6)
                + " WHERE n < ?", dueFrom, status, dueFrom, dueFrom, count);
    }

    /** Rows the server read for one full inspection, as the endpoint makes it. */
    private static long rowsRead(JdbcTemplate session, JdbcTaskInspector inspector, long now) {
        long before = handlerReads(session);
        inspector.countByStatus(EnumSet.allOf(TaskStatus.class));
        inspector.countByTypeAndStatus(EnumSet.allOf(TaskStatus.class), 1_000);
        inspector.overdue(now - 1_000);
        inspector.pendingDueWithin(now, List.of(1_000L, 60_000L, 3_600_000L, DAY));
        inspector.requestedDelays(List.of(1_000L, 60_000L), 10_000);
        return handlerReads(session) - before;
    }

    private static long handlerReads(JdbcTemplate session) {
        return session.query("SHOW SESSION STATUS LIKE 'Handler_read%'", (rs, row) -> rs.getLong(2)).stream()
            .mapToLong(Long::longValue).sum();
    }

    @Test
    void anInspectionReadsAsMuchWithAMillionFinishedTasksAsWithThirtyThousand() throws Exception {
        TestDatabase db = TestServices.newDatabase();
        try (Connection connection = DriverManager.getConnection(db.url(), db.user(), db.password())) {
            SingleConnectionDataSource session = new SingleConnectionDataSource(connection, true);
            new TaskSchema(session, "delay_task", "delay_task_schema_history").migrate();
            JdbcTemplate jdbc = new JdbcTemplate(session);
            JdbcTaskInspector inspector = new JdbcTaskInspector(session, "delay_task");
            long now = System.currentTimeMillis();
            load(jdbc, 30_000, "SUCCEEDED", now - 2 * DAY);
            load(jdbc, 50, "QUEUED", now - 10_000);
            load(jdbc, 20_000, "SCHEDULED", now + DAY);
            long small = rowsRead(jdbc, inspector, now);

            load(jdbc, 970_000, "SUCCEEDED", now - 10 * DAY);
            jdbc.execute("ANALYZE TABLE delay_task");
            long large = rowsRead(jdbc, inspector, now);

            assertThat(large).as("rows read with 1,000,000 finished tasks, against %d with 30,000", small)
                .isLessThan(small * 3 / 2 + 1_000);
            Map<TaskStatus, TaskInspector.Count> counts = inspector.countByStatus(EnumSet.allOf(TaskStatus.class));
            assertThat(counts.get(TaskStatus.QUEUED)).isEqualTo(TaskInspector.Count.exact(50));
            assertThat(counts.get(TaskStatus.FAILED)).isEqualTo(TaskInspector.Count.exact(0));
            assertThat(counts.get(TaskStatus.SUCCEEDED).estimated()).isTrue();
            assertThat(counts.get(TaskStatus.SUCCEEDED).value()).isBetween(500_000L, 2_000_000L);
            assertThat(counts.get(TaskStatus.SCHEDULED).estimated()).isTrue();
            TaskInspector.Overdue overdue = inspector.overdue(now - 1_000);
            assertThat(overdue.count()).isEqualTo(TaskInspector.Count.exact(50));
            TaskInspector.CumulativeCounts pending = inspector.pendingDueWithin(now,
                    List.of(1_000L, 2 * DAY));
            assertThat(pending.atOrBelow().get(0)).as("due within a second, overdue ones included").isEqualTo(50);
            assertThat(pending.atOrBelow().get(1)).as("an estimate: the right order of magnitude").isBetween(10_000L,
                    100_000L);
            assertThat(pending.estimated()).isTrue();
        }
    }
}
