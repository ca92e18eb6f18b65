package io.github.delayqueue.store;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link TaskStore} on MySQL 8 / MariaDB 10.6+ through Spring's {@link JdbcTemplate}, so inserts made inside the
 * application's transaction use its connection. Claims lock due rows with {@code FOR UPDATE SKIP LOCKED}, so
 * instances claiming at the same time take disjoint rows instead of waiting for each other.
 */
public class JdbcTaskStore implements TaskStore {

    /** Length of {@code last_error}; longer messages are cut. */
    public static final int MAX_ERROR_LENGTH = 2000;

    /** Length of {@code task_type}. */
    public static final int MAX_TYPE_LENGTH = 128;

    /** Length of {@code task_key}. */
    public static final int MAX_KEY_LENGTH = 255;

    /** Largest payload the {@code MEDIUMTEXT} column holds, in bytes. */
    public static final long MAX_PAYLOAD_BYTES = 16L * 1024 * 1024 - 1;

    /** Rows per multi-row statement, and payload bytes per statement, kept well under max_allowed_packet. */
    private static final int MAX_ROWS_PER_STATEMENT = 1000;

    private static final long MAX_BYTES_PER_STATEMENT = 4L * 1024 * 1024;

    private final JdbcTemplate jdbc;

    private final TransactionTemplate tx;

    private final String table;

    private final ClaimConnection claims;

    public JdbcTaskStore(DataSource dataSource, String table) {
        if (!isValidTableName(table)) {
            throw new IllegalArgumentException("Invalid task table name '" + table + "': use letters, digits and "
                    + "underscores, at most " + TableNames.MAX_TASK_TABLE_LENGTH + " characters");
        }
        this.jdbc = new JdbcTemplate(dataSource);
        this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        // READ COMMITTED: locking reads lock the rows they return and no gaps, so claims never deadlock with the
        // inserts of producers scheduling into the same index range.
        this.tx.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.table = TableNames.quoted(table); // every statement formats this in: a reserved word works too
        this.claims = new ClaimConnection(dataSource);
    }

    /** Gives the claim connection back to the pool; the store still works afterwards (it takes a new one). */
    public void close() {
        claims.giveBack();
    }

    /** See {@link TableNames#isValidTaskTable(String)}. */
    public static boolean isValidTableName(String table) {
        return TableNames.isValidTaskTable(table);
    }

    private String sql(String template) {
        return template.formatted(table);
    }

    private String sql(String template, int placeholders) {
        return template.formatted(table, TaskSql.placeholders(placeholders));
    }

    // --- insert ---------------------------------------------------------------------------------------------

    @Override
    public List<InsertedTask> insert(List<NewTask> tasks, long now) {
        InsertedTask[] results = new InsertedTask[tasks.size()];
        List<Integer> plain = new ArrayList<>();
        List<Integer> keyed = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i++) {
            (tasks.get(i).key() == null ? plain : keyed).add(i);
        }
        for (List<Integer> chunk : chunks(tasks, plain)) {
            insertPlain(tasks, chunk, now, results);
        }
        for (List<Integer> chunk : chunks(tasks, keyed)) {
            insertKeyed(tasks, chunk, now, results);
        }
        return List.of(results);
    }

    /** Splits rows into statements bounded by row count and payload bytes. */
    private static List<List<Integer>> chunks(List<NewTask> tasks, List<Integer> indexes) {
        List<List<Integer>> chunks = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        long bytes = 0;
        for (int index : indexes) {
            long size = tasks.get(index).payload().length() * 3L; // upper bound of UTF-8 bytes, cheap
            if (!current.isEmpty() && (current.size() == MAX_ROWS_PER_STATEMENT || bytes + size > MAX_BYTES_PER_STATEMENT)) {
                chunks.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(index);
            bytes += size;
        }
        if (!current.isEmpty()) {
            chunks.add(current);
        }
        return chunks;
    }

    private void insertPlain(List<NewTask> tasks, List<Integer> chunk, long now, InsertedTask[] results) {
        String statement = TaskSql.INSERT.formatted(table, String.join(", ",
                Collections.nCopies(chunk.size(), TaskSql.INSERT_ROW)));
        jdbc.execute((Connection connection) -> {
            try (PreparedStatement ps = connection.prepareStatement(statement, Statement.RETURN_GENERATED_KEYS)) {
                bindRows(ps, tasks, chunk, now);
                ps.executeUpdate();
                // One multi-row INSERT gets consecutive AUTO_INCREMENT values; the driver reports them in row order.
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    for (int index : chunk) {
                        if (!keys.next()) {
                            throw new SQLException("Fewer generated keys than inserted rows");
                        }
                        NewTask task = tasks.get(index);
                        results[index] = new InsertedTask(keys.getLong(1), true, task.status(), task.dueAt());
                    }
                }
            }
            return null;
        });
    }

    /**
     * Keyed rows: look up the keys that exist, insert the rest (a concurrent insert of the same key is absorbed by
     * the unique index), then read back their ids. Three statements per chunk, whatever its size.
     */
    private void insertKeyed(List<NewTask> tasks, List<Integer> chunk, long now, InsertedTask[] results) {
        Map<String, InsertedTask> existing = selectByKeys(tasks, chunk);
        Map<String, Integer> missing = new LinkedHashMap<>();
        for (int index : chunk) {
            String identity = identity(tasks.get(index).type(), tasks.get(index).key());
            if (!existing.containsKey(identity)) {
                missing.putIfAbsent(identity, index);
            }
        }
        Map<String, InsertedTask> created = new HashMap<>();
        if (!missing.isEmpty()) {
            List<Integer> rows = new ArrayList<>(missing.values());
            String statement = TaskSql.INSERT.formatted(table,
                    String.join(", ", Collections.nCopies(rows.size(), TaskSql.INSERT_ROW)))
                    + TaskSql.ON_DUPLICATE_KEY_KEEP;
            jdbc.execute((Connection connection) -> {
                try (PreparedStatement ps = connection.prepareStatement(statement)) {
                    bindRows(ps, tasks, rows, now);
                    ps.executeUpdate();
                }
                return null;
            });
            selectByKeys(tasks, rows).forEach((identity, task) -> created.put(identity,
                    new InsertedTask(task.id(), true, task.status(), task.dueAt())));
        }
        for (int index : chunk) {
            NewTask task = tasks.get(index);
            String identity = identity(task.type(), task.key());
            InsertedTask result = existing.get(identity);
            if (result == null) {
                result = created.get(identity);
                if (result == null) {
                    throw new IllegalStateException("Task " + identity + " was neither found nor inserted");
                }
                if (missing.get(identity) != index) { // the same key twice in one batch: the first one won
                    result = new InsertedTask(result.id(), false, result.status(), result.dueAt());
                }
            }
            results[index] = result;
        }
    }

    private Map<String, InsertedTask> selectByKeys(List<NewTask> tasks, List<Integer> rows) {
        String where = String.join(" OR ", Collections.nCopies(rows.size(), TaskSql.KEY_MATCH));
        Object[] args = new Object[rows.size() * 2];
        for (int i = 0; i < rows.size(); i++) {
            args[2 * i] = tasks.get(rows.get(i)).type();
            args[2 * i + 1] = tasks.get(rows.get(i)).key();
        }
        Map<String, InsertedTask> found = new HashMap<>();
        jdbc.query(TaskSql.SELECT_BY_KEYS.formatted(table, where), (ResultSet rs) -> {
            found.put(identity(rs.getString("task_type"), rs.getString("task_key")), new InsertedTask(rs.getLong("id"),
                    false, status(rs), rs.getLong("due_at")));
        }, args);
        return found;
    }

    private static String identity(String type, @Nullable String key) {
        return type.length() + ":" + type + ":" + key;
    }

    private static void bindRows(PreparedStatement ps, List<NewTask> tasks, List<Integer> rows, long now)
            throws SQLException {
        int p = 1;
        for (int index : rows) {
            NewTask task = tasks.get(index);
            ps.setString(p++, task.type());
            ps.setString(p++, task.key());
            ps.setString(p++, task.payload());
            ps.setLong(p++, task.dueAt());
            ps.setString(p++, task.status().name());
            if (task.maxAttempts() == null) {
                ps.setNull(p++, Types.INTEGER);
            }
            else {
                ps.setInt(p++, task.maxAttempts());
            }
            ps.setLong(p++, now);
            ps.setLong(p++, now);
        }
    }

    // --- claim ----------------------------------------------------------------------------------------------

    private static final RowMapper<ClaimedTask> CLAIMED = (rs, row) -> new ClaimedTask(rs.getLong("id"),
            rs.getString("task_type"), rs.getString("task_key"), rs.getString("payload"), rs.getLong("due_at"),
            rs.getInt("attempts") + 1, nullableInt(rs, "max_attempts"), rs.getLong("created_at"));

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Claim claim) {
        if (limit <= 0) {
            return List.of();
        }
        String select = TaskSql.SELECT_DUE_FOR_CLAIM.formatted(table, TaskSql.CLAIM_COLUMNS);
        return claims.inTransaction(
                t -> markRunning(t, t.query(select, CLAIMED, status.name(), dueBy, limit), claim));
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Claim claim) {
        if (ids.isEmpty()) {
            return List.of();
        }
        String select = TaskSql.SELECT_IDS_FOR_CLAIM.formatted(table, TaskSql.placeholders(ids.size()),
                TaskSql.CLAIM_COLUMNS);
        Object[] args = new Object[ids.size() + 1];
        int i = 0;
        for (Long id : ids) {
            args[i++] = id;
        }
        args[i] = dueBy;
        return claims.inTransaction(t -> markRunning(t, t.query(select, CLAIMED, args), claim));
    }

    @Override
    public List<ClaimedTask> claimedBy(String owner, long leaseAfter) {
        // the rows' attempts already count their claim
        return jdbc.query(TaskSql.SELECT_CLAIMED_BY.formatted(table, TaskSql.CLAIM_COLUMNS),
                (rs, row) -> new ClaimedTask(rs.getLong("id"), rs.getString("task_type"), rs.getString("task_key"),
                        rs.getString("payload"), rs.getLong("due_at"), rs.getInt("attempts"),
                        nullableInt(rs, "max_attempts"), rs.getLong("created_at")),
                owner, leaseAfter);
    }

    /** The selected rows are locked by this transaction, so the compare-and-set below wins every one of them. */
    private List<ClaimedTask> markRunning(JdbcTemplate jdbc, List<ClaimedTask> locked, Claim claim) {
        if (locked.isEmpty()) {
            return locked;
        }
        Object[] args = new Object[locked.size() + 3];
        args[0] = claim.owner();
        args[1] = claim.leaseUntil();
        args[2] = claim.now();
        for (int i = 0; i < locked.size(); i++) {
            args[i + 3] = locked.get(i).id();
        }
        int updated = jdbc.update(sql(TaskSql.MARK_RUNNING, locked.size()), args);
        if (updated != locked.size()) {
            throw new IllegalStateException("Claimed " + updated + " of " + locked.size() + " locked rows");
        }
        return locked;
    }

    // --- finish, leases, release -----------------------------------------------------------------------------

    /**
     * Each statement is a compare-and-set of its own rows, so no transaction spans them: the common case, a batch of
     * successes, is one autocommitted {@code UPDATE}.
     */
    @Override
    public void finish(String owner, List<Completion> completions, long now) {
        writeCompletions(completions, owner, now);
    }

    private void writeCompletions(List<Completion> completions, @Nullable String owner, long now) {
        List<Long> succeeded = new ArrayList<>();
        List<Object[]> retries = new ArrayList<>();
        List<Object[]> failures = new ArrayList<>();
        for (Completion completion : completions) {
            if (completion instanceof Completion.Succeeded s) {
                succeeded.add(s.id());
            }
            else if (completion instanceof Completion.Retry r) {
                retries.add(new Object[] { r.status().name(), r.dueAt(), truncate(r.error()), now, r.id(), owner });
            }
            else if (completion instanceof Completion.Failed f) {
                failures.add(new Object[] { truncate(f.error()), now, f.id(), owner });
            }
        }
        for (List<Long> part : partition(succeeded)) {
            Object[] args = new Object[part.size() + 2];
            args[0] = now;
            for (int i = 0; i < part.size(); i++) {
                args[i + 1] = part.get(i);
            }
            args[args.length - 1] = owner;
            jdbc.update(sql(TaskSql.MARK_SUCCEEDED, part.size()), args);
        }
        if (!retries.isEmpty()) {
            jdbc.batchUpdate(sql(TaskSql.MARK_RETRY), retries);
        }
        if (!failures.isEmpty()) {
            jdbc.batchUpdate(sql(TaskSql.MARK_FAILED), failures);
        }
    }

    @Override
    public int extendLeases(String owner, Collection<Long> ids, long leaseUntil, long now) {
        int held = 0;
        for (List<Long> part : partition(ids)) {
            Object[] args = new Object[part.size() + 3];
            args[0] = leaseUntil;
            args[1] = now;
            for (int i = 0; i < part.size(); i++) {
                args[i + 2] = part.get(i);
            }
            args[args.length - 1] = owner;
            held += jdbc.update(sql(TaskSql.EXTEND_LEASES, part.size()), args);
        }
        return held;
    }

    @Override
    public void release(String owner, Map<Long, TaskStatus> statusById, long now) {
        Map<TaskStatus, List<Long>> byStatus = new HashMap<>();
        statusById.forEach((id, status) -> byStatus.computeIfAbsent(status, s -> new ArrayList<>()).add(id));
        byStatus.forEach((status, ids) -> {
            for (List<Long> part : partition(ids)) {
                Object[] args = new Object[part.size() + 3];
                args[0] = status.name();
                args[1] = now;
                for (int i = 0; i < part.size(); i++) {
                    args[i + 2] = part.get(i);
                }
                args[args.length - 1] = owner;
                jdbc.update(sql(TaskSql.RELEASE, part.size()), args);
            }
        });
    }

    @Override
    public List<Completion> recoverExpiredLeases(long now, int limit, Function<ExpiredLease, Completion> decision) {
        return inTransaction(() -> {
            List<ExpiredLease> expired = jdbc.query(sql(TaskSql.SELECT_EXPIRED_LEASES),
                    (rs, row) -> new ExpiredLease(rs.getLong("id"), rs.getString("task_type"), rs.getString("owner"),
                            rs.getLong("due_at"), rs.getInt("attempts"), nullableInt(rs, "max_attempts")),
                    now, limit);
            List<Completion> decided = new ArrayList<>(expired.size());
            for (ExpiredLease lease : expired) {
                Completion completion = decision.apply(lease);
                // Rows are locked by this transaction; the owner check is the one the row had.
                writeCompletions(List.of(completion), lease.owner(), now);
                decided.add(completion);
            }
            return decided;
        });
    }

    // --- migration and index rebuild --------------------------------------------------------------------------

    @Override
    public List<DueTask> migrate(long dueBy, int limit, long now, Consumer<List<DueTask>> index) {
        return inTransaction(() -> {
            List<DueTask> due = jdbc.query(sql(TaskSql.SELECT_FOR_MIGRATION),
                    (rs, row) -> new DueTask(rs.getLong("id"), rs.getLong("due_at")), dueBy, limit);
            if (due.isEmpty()) {
                return due;
            }
            index.accept(due);
            Object[] args = new Object[due.size() + 1];
            args[0] = now;
            for (int i = 0; i < due.size(); i++) {
                args[i + 1] = due.get(i).id();
            }
            jdbc.update(sql(TaskSql.MARK_QUEUED, due.size()), args);
            return due;
        });
    }

    @Override
    public List<DueTask> pending(TaskStatus status, DueTask after, int limit) {
        return jdbc.query(sql(TaskSql.SELECT_PENDING_PAGE), (rs, row) -> new DueTask(rs.getLong("id"),
                rs.getLong("due_at")), status.name(), after.dueAt(), after.dueAt(), after.id(), limit);
    }

    @Override
    public List<DueTask> pendingAmong(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return jdbc.query(sql(TaskSql.SELECT_PENDING_AMONG, ids.size()),
                (rs, row) -> new DueTask(rs.getLong("id"), rs.getLong("due_at")), ids.toArray());
    }

    @Override
    public OptionalLong nextDue(TaskStatus status) {
        Long min = jdbc.queryForObject(sql(TaskSql.NEXT_DUE), Long.class, status.name());
        return min == null ? OptionalLong.empty() : OptionalLong.of(min);
    }

    // --- user operations --------------------------------------------------------------------------------------

    @Override
    public Optional<String> cancel(long id, long now) {
        return inTransaction(() -> {
            List<String> types = jdbc.queryForList(sql(TaskSql.SELECT_TYPE_FOR_UPDATE), String.class, id);
            if (types.isEmpty() || jdbc.update(sql(TaskSql.CANCEL), now, id) != 1) {
                return Optional.<String>empty();
            }
            return Optional.of(types.get(0));
        });
    }

    @Override
    public OptionalLong cancel(String type, String key, long now) {
        return inTransaction(() -> {
            List<Long> ids = jdbc.queryForList(sql(TaskSql.SELECT_ID_BY_KEY_FOR_UPDATE), Long.class, type, key);
            if (ids.isEmpty() || jdbc.update(sql(TaskSql.CANCEL), now, ids.get(0)) != 1) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(ids.get(0));
        });
    }

    @Override
    public boolean reschedule(long id, long dueAt, TaskStatus status, long now) {
        return jdbc.update(sql(TaskSql.RESCHEDULE), dueAt, status.name(), now, id) == 1;
    }

    private static final RowMapper<TaskView> VIEW = (rs, row) -> new TaskView(rs.getLong("id"),
            rs.getString("task_type"), rs.getString("task_key"), status(rs),
            Instant.ofEpochMilli(rs.getLong("due_at")), rs.getInt("attempts"), nullableInt(rs, "max_attempts"),
            rs.getString("last_error"), Instant.ofEpochMilli(rs.getLong("created_at")),
            Instant.ofEpochMilli(rs.getLong("updated_at")));

    @Override
    public Optional<TaskView> find(long id) {
        return jdbc.query(TaskSql.FIND_BY_ID.formatted(table, TaskSql.COLUMNS), VIEW, id).stream().findFirst();
    }

    @Override
    public Optional<TaskView> find(String type, String key) {
        return jdbc.query(TaskSql.FIND_BY_KEY.formatted(table, TaskSql.COLUMNS), VIEW, type, key).stream().findFirst();
    }

    @Override
    public long currentTimeMillis() {
        return Math.floorDiv(currentTimeMicros(), 1000);
    }

    @Override
    public long currentTimeMicros() {
        Long micros = jdbc.queryForObject(TaskSql.DATABASE_TIME, Long.class);
        if (micros == null) {
            throw new IllegalStateException("The database returned no current time");
        }
        return micros;
    }

    @Override
    public int purge(TaskStatus status, long updatedBefore, int limit) {
        return jdbc.update(sql(TaskSql.PURGE), status.name(), updatedBefore, limit);
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    private <T> T inTransaction(Supplier<T> work) {
        return tx.execute(status -> work.get());
    }

    private static List<List<Long>> partition(Collection<Long> ids) {
        List<List<Long>> parts = new ArrayList<>();
        List<Long> current = new ArrayList<>();
        for (Long id : ids) {
            current.add(id);
            if (current.size() == MAX_ROWS_PER_STATEMENT) {
                parts.add(current);
                current = new ArrayList<>();
            }
        }
        if (!current.isEmpty()) {
            parts.add(current);
        }
        return parts;
    }

    /** The row's status; a value edited in by hand that is none of ours is an error naming the row. */
    private static TaskStatus status(ResultSet rs) throws SQLException {
        String status = rs.getString("status");
        try {
            return TaskStatus.valueOf(status);
        }
        catch (IllegalArgumentException | NullPointerException ex) {
            throw new IllegalStateException("Task " + rs.getLong("id") + " has status '" + status
                    + "', which is not a status of this queue (was the row edited by hand?); the queue leaves it "
                    + "alone: set it to SCHEDULED to run it or CANCELLED to drop it");
        }
    }

    private static @Nullable Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? null : value;
    }

    static String truncate(String error) {
        if (error.length() <= MAX_ERROR_LENGTH) {
            return error;
        }
        return error.substring(0, MAX_ERROR_LENGTH - 3) + "...";
    }

    /** UTF-8 size of a payload, as the column counts it. */
    public static long payloadBytes(String payload) {
        return payload.getBytes(StandardCharsets.UTF_8).length;
    }
}
