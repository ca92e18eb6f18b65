package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import io.github.delayqueue.api.TaskStatus;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link TaskInspector} on MySQL 8 / MariaDB 10.6+. The frequent reads (counts of unfinished statuses, the overdue
 * tasks) are range scans of the {@code (status, due_at)} index; the endpoint's reads by type and of requested delays
 * are bounded by a statement timeout, the latter also by sampling only the most recent ids.
 */
public class JdbcTaskInspector implements TaskInspector {

    static final String COUNT_BY_STATUS = """
            SELECT status, COUNT(*) AS n FROM %1$s
            WHERE status IN (%2$s)
            GROUP BY status""";

    static final String COUNT_BY_TYPE_AND_STATUS = """
            SELECT task_type, status, COUNT(*) AS n FROM %1$s
            GROUP BY task_type, status
            ORDER BY task_type, status""";

    static final String OVERDUE = """
            SELECT COUNT(*) AS n, MIN(due_at) AS oldest FROM %1$s
            WHERE status IN ('SCHEDULED', 'QUEUED') AND due_at < ?""";

    static final String MAX_ID = "SELECT MAX(id) FROM %1$s";

    /**
     * Only rows whose due time is still the one requested: never attempted, or finished (or running) on the first
     * attempt. A retry or a lease recovery moves {@code due_at} to the backoff, which is not a requested delay.
     */
    static final String REQUESTED_DELAYS = """
            SELECT COUNT(*) AS total%2$s FROM %1$s
            WHERE id > ?
              AND (attempts = 0 OR (attempts = 1 AND status IN ('RUNNING', 'SUCCEEDED', 'FAILED')))""";

    static final String DELAY_AT_OR_BELOW = ", COALESCE(SUM(CASE WHEN due_at - created_at <= ? THEN 1 ELSE 0 END), 0)";

    static final String PENDING_DUE_WITHIN = """
            SELECT COUNT(*) AS total%2$s FROM %1$s
            WHERE status IN ('SCHEDULED', 'QUEUED')""";

    static final String DUE_AT_OR_BEFORE = ", COALESCE(SUM(CASE WHEN due_at <= ? THEN 1 ELSE 0 END), 0)";

    static final String RERUN_FAILED = """
            UPDATE %1$s SET status = ?, due_at = ?, attempts = 0, owner = NULL, lease_until = NULL, started_at = NULL,
                updated_at = ?
            WHERE id = ? AND status = 'FAILED'""";

    /** Longest an inspection query may run; they serve people and scrapes, never the dispatching. */
    private static final int QUERY_TIMEOUT_SECONDS = 10;

    private final JdbcTemplate jdbc;

    private final String table;

    public JdbcTaskInspector(DataSource dataSource, String table) {
        if (!TableNames.isValidTaskTable(table)) {
            throw new IllegalArgumentException("Invalid task table name '" + table + "': use letters, digits and "
                    + "underscores, at most " + TableNames.MAX_TASK_TABLE_LENGTH + " characters");
        }
        this.jdbc = new JdbcTemplate(dataSource);
        this.jdbc.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
        this.table = TableNames.quoted(table);
    }

    @Override
    public Map<TaskStatus, Long> countByStatus(Set<TaskStatus> statuses) {
        Map<TaskStatus, Long> counts = new EnumMap<>(TaskStatus.class);
        if (statuses.isEmpty()) {
            return counts;
        }
        statuses.forEach(status -> counts.put(status, 0L));
        String sql = COUNT_BY_STATUS.formatted(table, String.join(", ", Collections.nCopies(statuses.size(), "?")));
        jdbc.query(sql, rs -> {
            counts.put(TaskStatus.valueOf(rs.getString("status")), rs.getLong("n"));
        }, statuses.stream().map(TaskStatus::name).toArray());
        return counts;
    }

    @Override
    public List<TypeCount> countByTypeAndStatus() {
        return jdbc.query(COUNT_BY_TYPE_AND_STATUS.formatted(table), (rs, row) -> new TypeCount(
                rs.getString("task_type"), TaskStatus.valueOf(rs.getString("status")), rs.getLong("n")));
    }

    @Override
    public Overdue overdue(long dueBefore) {
        return jdbc.queryForObject(OVERDUE.formatted(table), (rs, row) -> {
            long oldest = rs.getLong("oldest");
            Long oldestDueAt = rs.wasNull() ? null : oldest;
            return new Overdue(rs.getLong("n"), oldestDueAt);
        }, dueBefore);
    }

    @Override
    public CumulativeCounts requestedDelays(List<Long> boundsMillis, int sample) {
        Long maxId = jdbc.queryForObject(MAX_ID.formatted(table), Long.class);
        if (maxId == null) {
            return new CumulativeCounts(0, Collections.nCopies(boundsMillis.size(), 0L));
        }
        List<Object> args = new ArrayList<>(boundsMillis);
        args.add(maxId - sample);
        return cumulative(REQUESTED_DELAYS, DELAY_AT_OR_BELOW, boundsMillis.size(), args);
    }

    @Override
    public CumulativeCounts pendingDueWithin(long now, List<Long> boundsMillis) {
        List<Object> args = new ArrayList<>(boundsMillis.size());
        for (long bound : boundsMillis) {
            args.add(now + bound);
        }
        return cumulative(PENDING_DUE_WITHIN, DUE_AT_OR_BEFORE, boundsMillis.size(), args);
    }

    private CumulativeCounts cumulative(String template, String column, int columns, List<Object> args) {
        String sql = template.formatted(table, String.join("", Collections.nCopies(columns, column)));
        return jdbc.queryForObject(sql, (rs, row) -> {
            List<Long> atOrBelow = new ArrayList<>(columns);
            for (int i = 0; i < columns; i++) {
                atOrBelow.add(rs.getLong(i + 2));
            }
            return new CumulativeCounts(rs.getLong("total"), List.copyOf(atOrBelow));
        }, args.toArray());
    }

    @Override
    public boolean rerunFailed(long id, TaskStatus status, long dueAt, long now) {
        if (!status.isPending()) {
            throw new IllegalArgumentException("A re-run task must become pending, not " + status);
        }
        return jdbc.update(RERUN_FAILED.formatted(table), status.name(), dueAt, now, id) == 1;
    }
}
