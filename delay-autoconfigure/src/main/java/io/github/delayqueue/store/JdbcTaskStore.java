package io.github.delayqueue.store;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
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

    /** Rows per statement that names rows by id. */
    private static final int MAX_ROWS_PER_STATEMENT = 1000;

    private final JdbcTemplate jdbc;

    private final TransactionTemplate tx;

    private final String table;

    private final ClaimConnection claims;

    private final TaskInserts inserts;

    /** How long a claim may wait for its answer, unless told: the default lease. */
    private static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(30);

    public JdbcTaskStore(DataSource dataSource, String table) {
        this(dataSource, table, DEFAULT_CLAIM_TIMEOUT);
    }

    /**
     * @param claimTimeout how long a claim waits for the database's answer: the lease, after which its tasks would
     *     not be started anyway
     */
    public JdbcTaskStore(DataSource dataSource, String table, Duration claimTimeout) {
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
        this.claims = new ClaimConnection(dataSource, claimTimeout);
        this.inserts = new TaskInserts(dataSource, jdbc, this.table);
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
        return inserts.insert(tasks, now);
    }

    // --- claim ----------------------------------------------------------------------------------------------

    /** A claimed row: {@code attempts} and {@code claims} as read before the claim's update. */
    private static final RowMapper<ClaimedTask> CLAIMED = (rs, row) -> new ClaimedTask(rs.getLong("id"),
            rs.getString("task_type"), rs.getString("task_key"), rs.getString("payload"), rs.getLong("due_at"),
            rs.getInt("attempts") + 1, nullableInt(rs, "max_attempts"), rs.getLong("created_at"),
            rs.getLong("claims") + 1);

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Lease lease) {
        if (limit <= 0) {
            return List.of();
        }
        String select = TaskSql.SELECT_DUE_FOR_CLAIM.formatted(table, TaskSql.CLAIM_COLUMNS);
        return claims.inTransaction(
                t -> markRunning(t, t.query(select, CLAIMED, status.name(), dueBy, limit), lease));
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Lease lease) {
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
        return claims.inTransaction(t -> markRunning(t, t.query(select, CLAIMED, args), lease));
    }

    @Override
    public List<ClaimedTask> claimedBy(String owner, long leaseAfter) {
        // the rows were claimed already: their claim number is the current one
        return jdbc.query(TaskSql.SELECT_CLAIMED_BY.formatted(table, TaskSql.CLAIM_COLUMNS),
                (rs, row) -> new ClaimedTask(rs.getLong("id"), rs.getString("task_type"), rs.getString("task_key"),
                        rs.getString("payload"), rs.getLong("due_at"), rs.getInt("attempts") + 1,
                        nullableInt(rs, "max_attempts"), rs.getLong("created_at"), rs.getLong("claims")),
                owner, leaseAfter);
    }

    /** The selected rows are locked by this transaction, so the compare-and-set below wins every one of them. */
    private List<ClaimedTask> markRunning(JdbcTemplate jdbc, List<ClaimedTask> locked, Lease lease) {
        if (locked.isEmpty()) {
            return locked;
        }
        Object[] args = new Object[locked.size() + 3];
        args[0] = lease.owner();
        args[1] = lease.until();
        args[2] = lease.now();
        for (int i = 0; i < locked.size(); i++) {
            args[i + 3] = locked.get(i).id();
        }
        int updated = jdbc.update(sql(TaskSql.MARK_RUNNING, locked.size()), args);
        if (updated != locked.size()) {
            throw new IllegalStateException("Claimed " + updated + " of " + locked.size() + " locked rows");
        }
        return locked;
    }

    // --- start, finish, leases, release ----------------------------------------------------------------------

    @Override
    public void markStarted(Collection<ClaimId> started, long now) {
        for (List<ClaimId> part : partition(started)) {
            jdbc.update(claimSql(TaskSql.MARK_STARTED, part.size()), claimArgs(part, now));
        }
    }

    /**
     * Each statement is a compare-and-set of its own claims, so no transaction spans them: the common case, a batch
     * of successes, is one autocommitted {@code UPDATE}.
     */
    @Override
    public void finish(List<Completion> completions, long now) {
        writeCompletions(jdbc, completions, now);
    }

    private void writeCompletions(JdbcTemplate jdbc, List<Completion> completions, long now) {
        List<ClaimId> succeeded = new ArrayList<>();
        List<Object[]> retries = new ArrayList<>();
        List<Object[]> failures = new ArrayList<>();
        for (Completion completion : completions) {
            if (completion instanceof Completion.Succeeded s) {
                succeeded.add(s.claimId());
            }
            else if (completion instanceof Completion.Retry r) {
                retries.add(new Object[] { r.status().name(), r.dueAt(), r.attempts(), truncate(r.error()), now,
                        r.id(), r.claim() });
            }
            else if (completion instanceof Completion.Failed f) {
                failures.add(new Object[] { f.attempts(), truncate(f.error()), now, f.id(), f.claim() });
            }
        }
        for (List<ClaimId> part : partition(succeeded)) {
            jdbc.update(claimSql(TaskSql.MARK_SUCCEEDED, part.size()), claimArgs(part, now, now));
        }
        if (!retries.isEmpty()) {
            jdbc.batchUpdate(sql(TaskSql.MARK_RETRY), retries);
        }
        if (!failures.isEmpty()) {
            jdbc.batchUpdate(sql(TaskSql.MARK_FAILED), failures);
        }
    }

    @Override
    public Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil) {
        Set<ClaimId> renewed = new HashSet<>();
        for (List<ClaimId> part : partition(held)) {
            int matched = jdbc.update(claimSql(TaskSql.EXTEND_LEASES, part.size()), claimArgs(part, leaseUntil));
            if (matched == part.size()) {
                renewed.addAll(part);
            }
            else {
                // some of these claims are gone (finished, or taken by another instance): find which are left
                Set<ClaimId> current = new HashSet<>(jdbc.query(sql(TaskSql.SELECT_CLAIMS, part.size()),
                        (rs, row) -> new ClaimId(rs.getLong("id"), rs.getLong("claims")),
                        part.stream().map(ClaimId::id).toArray()));
                part.stream().filter(current::contains).forEach(renewed::add);
            }
        }
        return renewed;
    }

    @Override
    public void release(Map<ClaimId, TaskStatus> statusByClaim, long now) {
        Map<TaskStatus, List<ClaimId>> byStatus = new HashMap<>();
        statusByClaim.forEach((claim, status) -> byStatus.computeIfAbsent(status, s -> new ArrayList<>()).add(claim));
        byStatus.forEach((status, claimIds) -> {
            for (List<ClaimId> part : partition(claimIds)) {
                jdbc.update(claimSql(TaskSql.RELEASE, part.size()), claimArgs(part, status.name(), now));
            }
        });
    }

    @Override
    public List<Completion> recoverExpiredLeases(long now, int limit, Function<ExpiredLease, Completion> decision) {
        return inTransaction(() -> {
            List<ExpiredLease> expired = jdbc.query(sql(TaskSql.SELECT_EXPIRED_LEASES),
                    (rs, row) -> new ExpiredLease(rs.getLong("id"), rs.getString("task_type"), rs.getString("owner"),
                            rs.getLong("due_at"), rs.getInt("attempts"), nullableInt(rs, "max_attempts"),
                            rs.getLong("claims"), nullableLong(rs, "started_at") != null),
                    now, limit);
            List<Completion> decided = new ArrayList<>(expired.size());
            for (ExpiredLease lease : expired) {
                decided.add(decision.apply(lease));
            }
            // the rows are locked by this transaction, and each write matches the expired claim
            writeCompletions(jdbc, decided, now);
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

    /**
     * On a connection of its own, under the purge lock, in READ COMMITTED and autocommit: each statement locks only
     * the rows it deletes, never a gap a cancel or a completion would insert into, and commits them at once.
     */
    @Override
    public long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
        Long deleted = jdbc.execute((Connection connection) -> {
            String lock = NamedLock.name("delay_purge", catalog(connection), table);
            if (!NamedLock.acquire(connection, lock, 0)) {
                return -1L;
            }
            int isolation = connection.getTransactionIsolation();
            long total = 0;
            long deadline = System.nanoTime() + budgetMillis * 1_000_000;
            try {
                connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                try (PreparedStatement delete = connection.prepareStatement(sql(TaskSql.PURGE))) {
                    for (Map.Entry<TaskStatus, Long> cutoff : changedBefore.entrySet()) {
                        int n;
                        do {
                            delete.setString(1, cutoff.getKey().name());
                            delete.setLong(2, cutoff.getValue());
                            delete.setInt(3, batchSize);
                            n = delete.executeUpdate();
                            total += n;
                        }
                        while (n == batchSize && System.nanoTime() < deadline);
                    }
                }
            }
            finally {
                connection.setTransactionIsolation(isolation);
                NamedLock.release(connection, lock);
            }
            return total;
        });
        return deleted == null ? 0 : deleted;
    }

    private static String catalog(Connection connection) throws SQLException {
        String catalog = connection.getCatalog();
        return catalog == null ? "" : catalog;
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    /** A statement that names {@code count} claims: their ids, then their (id, claim) pairs. */
    private String claimSql(String template, int count) {
        return template.formatted(table, TaskSql.placeholders(count), TaskSql.pairPlaceholders(count));
    }

    /** {@code leading} values, then the ids of {@code claims}, then their (id, claim) pairs. */
    private static Object[] claimArgs(List<ClaimId> claims, Object... leading) {
        Object[] args = new Object[leading.length + claims.size() * 3];
        System.arraycopy(leading, 0, args, 0, leading.length);
        int p = leading.length;
        for (ClaimId claim : claims) {
            args[p++] = claim.id();
        }
        for (ClaimId claim : claims) {
            args[p++] = claim.id();
            args[p++] = claim.claim();
        }
        return args;
    }

    private <T> T inTransaction(Supplier<T> work) {
        return tx.execute(status -> work.get());
    }

    private static <T> List<List<T>> partition(Collection<T> ids) {
        List<List<T>> parts = new ArrayList<>();
        List<T> current = new ArrayList<>();
        for (T id : ids) {
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
    static TaskStatus status(ResultSet rs) throws SQLException {
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

    private static @Nullable Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
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
