package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

import io.github.delayqueue.api.TaskStatus;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link TaskInspector} on MySQL 8 / MariaDB 10.6+. Counts read at most {@link #EXACT_UP_TO} + 1 entries of the
 * {@code (status, due_at)} index; past that they ask the optimizer for its estimate of the range ({@code EXPLAIN}),
 * which costs an index dive, so no answer grows with the table. Per-type figures read a bounded number of rows per
 * status; requested delays sample the most recent ids.
 */
class JdbcTaskInspector implements TaskInspector {

    static final String COUNT_UP_TO = "SELECT COUNT(*) FROM (SELECT 1 FROM %1$s WHERE %2$s LIMIT ?) counted";

    static final String ESTIMATE = "EXPLAIN SELECT 1 FROM %1$s WHERE %2$s";

    static final String TYPES_OF_STATUS = """
            SELECT task_type, COUNT(*) AS n FROM (
                SELECT task_type FROM %1$s WHERE status = ? ORDER BY due_at LIMIT ?) sampled
            GROUP BY task_type""";

    static final String OLDEST_DUE = "SELECT MIN(due_at) FROM %1$s WHERE status = ?";

    static final String OLDEST_DUE_WHERE = "SELECT MIN(due_at) FROM %1$s WHERE %2$s";

    static final String FIRST_DUE_TIMES = "SELECT due_at FROM %1$s WHERE status = ? ORDER BY due_at LIMIT ?";

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

    static final String RERUN_FAILED = """
            UPDATE %1$s SET status = ?, due_at = ?, attempts = 0, owner = NULL, lease_until = NULL, started_at = NULL,
                updated_at = ?
            WHERE id = ? AND status IN ('FAILED', 'PARKED')""";

    /** Parked tasks are few, and found through the (status, due_at) index; the type filters that range. */
    static final String PARKED = """
            SELECT id FROM %1$s WHERE status = 'PARKED' AND task_type = ? AND id > ? ORDER BY id LIMIT ?""";

    private static final List<TaskStatus> PENDING = List.of(TaskStatus.SCHEDULED, TaskStatus.QUEUED);

    /** Longest an inspection query may run; they serve people and scrapes, never the dispatching. */
    private static final int QUERY_TIMEOUT_SECONDS = 10;

    private final JdbcTemplate jdbc;

    private final String table;

    private final String typesOfStatus;

    private final String oldestDue;

    private final String firstDueTimes;

    private final String selectMaxId;

    private final String rerunFailed;

    private final String parked;

    private final Rows ofStatus;

    private final Rows overdueRows;

    private final Rows ofStatusDueBy;

    public JdbcTaskInspector(DataSource dataSource, String table) {
        this.table = TableNames.quoted(TableNames.requireValidTaskTable(table));
        this.jdbc = new JdbcTemplate(dataSource);
        this.jdbc.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
        this.typesOfStatus = TYPES_OF_STATUS.formatted(this.table);
        this.oldestDue = OLDEST_DUE.formatted(this.table);
        this.firstDueTimes = FIRST_DUE_TIMES.formatted(this.table);
        this.selectMaxId = MAX_ID.formatted(this.table);
        this.rerunFailed = RERUN_FAILED.formatted(this.table);
        this.parked = PARKED.formatted(this.table);
        this.ofStatus = rows("status = ?");
        this.overdueRows = rows("status IN ('SCHEDULED', 'QUEUED') AND due_at < ?");
        this.ofStatusDueBy = rows("status = ? AND due_at <= ?");
    }

    /** The rows a condition selects: the statements that count them up to a bound and that estimate them. */
    private record Rows(String countUpTo, String estimate) {
    }

    private Rows rows(String where) {
        return new Rows(COUNT_UP_TO.formatted(table, where), ESTIMATE.formatted(table, where));
    }

    /** Exact up to {@link #EXACT_UP_TO}, else the optimizer's estimate (never below what was counted). */
    private Count count(Rows rows, Object... args) {
        Object[] limited = Arrays.copyOf(args, args.length + 1);
        limited[args.length] = EXACT_UP_TO + 1;
        Long counted = jdbc.queryForObject(rows.countUpTo(), Long.class, limited);
        long n = counted == null ? 0 : counted;
        if (n <= EXACT_UP_TO) {
            return Count.exact(n);
        }
        return new Count(Math.max(n, estimate(rows, args)), true);
    }

    private long estimate(Rows rows, Object... args) {
        List<Long> estimates = jdbc.query(rows.estimate(), (rs, row) -> rs.getLong("rows"), args);
        return estimates.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    @Override
    public Map<TaskStatus, Count> countByStatus(Set<TaskStatus> statuses) {
        Map<TaskStatus, Count> counts = new EnumMap<>(TaskStatus.class);
        for (TaskStatus status : statuses) {
            counts.put(status, count(ofStatus, status.name()));
        }
        return counts;
    }

    @Override
    public List<TypeCount> countByTypeAndStatus(Set<TaskStatus> statuses, int perStatus) {
        List<TypeCount> counts = new ArrayList<>();
        for (TaskStatus status : statuses) {
            jdbc.query(typesOfStatus, rs -> {
                counts.add(new TypeCount(rs.getString("task_type"), status, rs.getLong("n")));
            }, status.name(), perStatus);
        }
        return counts;
    }

    @Override
    public Overdue overdue(long dueBefore) {
        Long oldest = null;
        for (TaskStatus status : PENDING) {
            Long due = jdbc.queryForObject(oldestDue, Long.class, status.name());
            if (due != null && due < dueBefore && (oldest == null || due < oldest)) {
                oldest = due;
            }
        }
        if (oldest == null) {
            return new Overdue(Count.exact(0), null);
        }
        return new Overdue(count(overdueRows, dueBefore), oldest);
    }

    @Override
    public Overdue overdueOfOtherTypes(long dueBefore, Set<String> types) {
        if (types.isEmpty()) {
            return overdue(dueBefore);
        }
        String where = "status IN ('SCHEDULED', 'QUEUED') AND due_at < ? AND task_type NOT IN ("
                + TaskSql.placeholders(types.size()) + ")";
        List<Object> args = new ArrayList<>();
        args.add(dueBefore);
        args.addAll(types);
        Long oldest = jdbc.queryForObject(OLDEST_DUE_WHERE.formatted(table, where), Long.class, args.toArray());
        if (oldest == null) {
            return new Overdue(Count.exact(0), null);
        }
        return new Overdue(count(rows(where), args.toArray()), oldest);
    }

    @Override
    public CumulativeCounts requestedDelays(List<Long> boundsMillis, int sample) {
        Long maxId = jdbc.queryForObject(selectMaxId, Long.class);
        if (maxId == null) {
            return new CumulativeCounts(0, Collections.nCopies(boundsMillis.size(), 0L));
        }
        List<Object> args = new ArrayList<>(boundsMillis);
        args.add(maxId - sample);
        return cumulative(REQUESTED_DELAYS, DELAY_AT_OR_BELOW, boundsMillis.size(), args);
    }

    /**
     * Per pending status, the first {@link #EXACT_UP_TO} + 1 due times (a covering read of the index) answer every
     * bound below the last of them exactly; a bound beyond it gets the optimizer's estimate.
     */
    @Override
    public CumulativeCounts pendingDueWithin(long now, List<Long> boundsMillis) {
        long[] atOrBelow = new long[boundsMillis.size()];
        long total = 0;
        boolean estimated = false;
        for (TaskStatus status : PENDING) {
            List<Long> first = jdbc.queryForList(firstDueTimes, Long.class, status.name(),
                    EXACT_UP_TO + 1);
            boolean complete = first.size() <= EXACT_UP_TO;
            for (int i = 0; i < atOrBelow.length; i++) {
                long dueBy = now + boundsMillis.get(i);
                if (complete || first.get(first.size() - 1) > dueBy) {
                    atOrBelow[i] += countAtOrBelow(first, dueBy);
                }
                else {
                    atOrBelow[i] += Math.max(first.size(), estimate(ofStatusDueBy, status.name(), dueBy));
                    estimated = true;
                }
            }
            Count all = complete ? Count.exact(first.size()) : count(ofStatus, status.name());
            total += all.value();
            estimated |= all.estimated();
        }
        List<Long> counts = new ArrayList<>(atOrBelow.length);
        for (long n : atOrBelow) {
            counts.add(Math.min(n, total));
        }
        return new CumulativeCounts(total, List.copyOf(counts), estimated);
    }

    /** How many of the ascending {@code dueTimes} are at or before {@code dueBy}. */
    private static long countAtOrBelow(List<Long> dueTimes, long dueBy) {
        int low = 0;
        int high = dueTimes.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (dueTimes.get(mid) <= dueBy) {
                low = mid + 1;
            }
            else {
                high = mid;
            }
        }
        return low;
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
        return jdbc.update(rerunFailed, status.name(), dueAt, now, id) == 1;
    }

    @Override
    public List<Long> parked(String type, long afterId, int limit) {
        return jdbc.queryForList(parked, Long.class, type, afterId, limit);
    }
}
