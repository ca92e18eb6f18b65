package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One insert call's rows, split into multi-row statements bounded by row count and payload bytes, and written with
 * their ids read back ({@link GeneratedIds}). Keyed rows stay idempotent per key and report exactly who created a
 * task: the keys found are looked up first (but for a single write, autocommitted or in the caller's transaction,
 * which inserts at once); the rest are inserted by a plain {@code INSERT}, which either stores them all (this call
 * created them) or, when another call committed one of the keys, fails on the unique key and stores nothing. Then
 * each key is settled on its own: inserted, or found taken and read with a locking read, which sees the row whichever
 * transaction committed it (in a transaction, of the key's index entry alone: {@link #findHolder}). Where the
 * statements run (autocommit, a transaction of its own, the caller's) is {@link TaskInserts}'s choice.
 */
final class InsertBatch {

    /** Rows per multi-row statement, and payload bytes per statement, kept well under max_allowed_packet. */
    private static final int MAX_ROWS_PER_STATEMENT = 1000;

    private static final long MAX_BYTES_PER_STATEMENT = 4L * 1024 * 1024;

    /** Times one key is tried when the row in its way is gone again before it can be read (only the purge deletes). */
    private static final int MAX_TRIES_PER_KEY = 3;

    private final String table;

    private final Function<JdbcTemplate, GeneratedIds> ids;

    private final List<NewTask> tasks;

    private final long now;

    private final List<List<Integer>> plain;

    private final List<List<Integer>> keyed;

    /** Requests with a key mode other than keep (replace, debounce, run once more): each on its own, in key order. */
    private final List<Integer> changing;

    /** Put before every insert and update: MariaDB's {@code SET STATEMENT ... FOR}, or nothing. */
    private String statementPrefix = "";

    /**
     * @param table the quoted table name
     * @param ids how the server gives back generated ids, asked only when rows are written, on the connection that
     *     writes them (another one from the pool could be the one a caller of many is waiting for)
     */
    InsertBatch(String table, Function<JdbcTemplate, GeneratedIds> ids, List<NewTask> tasks, long now) {
        this.table = table;
        this.ids = ids;
        this.tasks = tasks;
        this.now = now;
        List<Integer> plainRows = new ArrayList<>();
        List<Integer> keyedRows = new ArrayList<>();
        List<Integer> changingRows = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i++) {
            NewTask task = tasks.get(i);
            (task.key() == null ? plainRows : task.changesPending() ? changingRows : keyedRows).add(i);
        }
        // keyed rows in one order everywhere: two transactions inserting the same keys lock them in the same
        // order, so they wait for each other instead of deadlocking (a stable sort: one key's requests in order)
        Comparator<Integer> byKey = Comparator.comparing((Integer i) -> tasks.get(i).type())
            .thenComparing(i -> tasks.get(i).key());
        keyedRows.sort(byKey);
        changingRows.sort(byKey);
        this.plain = chunks(plainRows);
        this.keyed = chunks(keyedRows);
        this.changing = changingRows;
    }

    /**
     * Puts {@code prefix} before every insert and update the batch runs from now on (MariaDB's {@code SET STATEMENT var
     * = value FOR}: a setting for one statement, taking no round trip of its own). Not before the reads: MySQL
     * Connector/J refuses to run a query that starts with {@code SET}, and the locking reads here come after a key was
     * found committed, whose row only a claim's or a change's short transaction holds.
     */
    void prefixStatements(String prefix) {
        this.statementPrefix = prefix;
    }

    private String sql(String statement) {
        return statementPrefix + statement;
    }

    /** Whether a row has a key: only a keyed row's write can wait for a lock that another transaction holds. */
    boolean hasKeys() {
        return !keyed.isEmpty() || !changing.isEmpty();
    }

    /**
     * How many write statements the batch needs, unless keys are taken while it writes. A change of a pending task
     * counts two: its update and the read of what it left, which must come before the commit.
     */
    int writes() {
        return plain.size() + keyed.size() + 2 * changing.size();
    }

    /**
     * Writes every row through {@code jdbc}; {@code progress} watches the last write.
     *
     * @param undoneTogether whether every write made here is undone if a later one fails (a transaction or a
     *     savepoint around them). When it is not, the batch has one write, and if that write finds one of several
     *     keys taken meanwhile this throws {@link KeysTakenMeanwhile} (nothing was stored) instead of settling the
     *     keys one by one: write the batch again where its writes are undone together.
     */
    List<InsertedTask> write(JdbcTemplate jdbc, InsertProgress progress, boolean undoneTogether) {
        return write(jdbc, progress, undoneTogether, false);
    }

    /**
     * As {@link #write(JdbcTemplate, InsertProgress, boolean)}; {@code restartable} when the writes run in a
     * transaction of the queue's own that can be rolled back and written again: a change whose key another call
     * created meanwhile then throws {@link KeyCreatedMeanwhile} rather than go on under the shared lock that the
     * failed insert took (two such callers, each waiting to update the row the other holds shared, deadlock).
     */
    List<InsertedTask> write(JdbcTemplate jdbc, InsertProgress progress, boolean undoneTogether,
            boolean restartable) {
        InsertedTask[] results = new InsertedTask[tasks.size()];
        int remaining = writes();
        for (List<Integer> chunk : plain) {
            List<Long> inserted = --remaining == 0 ? progress.lastWrite(jdbc, j -> insertRows(j, chunk))
                    : insertRows(jdbc, chunk);
            for (int i = 0; i < chunk.size(); i++) {
                results[chunk.get(i)] = created(chunk.get(i), inserted.get(i));
            }
        }
        for (List<Integer> chunk : keyed) {
            insertKeyed(jdbc, chunk, results, --remaining == 0 ? progress : null, undoneTogether);
        }
        for (int index : changing) {
            results[index] = change(jdbc, index, restartable); // writes() made this a transaction or a savepoint
        }
        return List.of(results);
    }

    /**
     * A request that changes the key's pending task: the key's live task changed (replaced or pushed out), kept when
     * it is running, or a new task when none holds the key. The update is one statement that works from the row as
     * it is then (a debounce takes the later of its due time and the row's), so concurrent requests for one key
     * leave the latest due time whatever their order; a row that stopped being pending meanwhile is looked up again.
     */
    private InsertedTask change(JdbcTemplate jdbc, int index, boolean restartable) {
        NewTask task = tasks.get(index);
        DuplicateKeyException taken = null;
        for (int attempt = 0; attempt < MAX_TRIES_PER_KEY; attempt++) {
            InsertedTask live = selectByKeys(jdbc, List.of(index), attempt > 0).get(identity(index));
            if (live == null) {
                try {
                    return created(index, insertRows(jdbc, List.of(index)).get(0));
                }
                catch (DuplicateKeyException ex) {
                    if (restartable) {
                        throw new KeyCreatedMeanwhile(ex);
                    }
                    taken = ex; // another call created it since the look-up: change that one
                    continue;
                }
            }
            if (task.keyMode() == TaskRequest.KeyMode.RUN_ONCE_MORE) {
                if (live.status().isPending()) {
                    return live; // it has not run yet: it covers this request
                }
                InsertedTask followUp = followUp(jdbc, task);
                if (followUp != null) {
                    return followUp;
                }
                continue;
            }
            if (!live.status().isPending()) {
                return live; // running: never changed
            }
            InsertedTask changed = updatePending(jdbc, task, live.id());
            if (changed != null) {
                return changed;
            }
        }
        throw taken != null ? taken : new IllegalStateException("The live task of key '" + task.key() + "' (type '"
                + task.type() + "') changed " + MAX_TRIES_PER_KEY + " times while this request tried to change it");
    }

    /**
     * The one follow-up of the key's running task: stored now, waiting, or the one that waits already (this request
     * folds into it); {@code null} when that one was released meanwhile (look again).
     */
    private @Nullable InsertedTask followUp(JdbcTemplate jdbc, NewTask task) {
        NewTask waiting = new NewTask(task.type(), task.key(), task.payload(), task.dueAt(), TaskStatus.WAITING,
                task.maxAttempts(), task.keyMode(), task.maxDelayMillis(), task.queuedUpTo(), task.traceContext());
        try {
            long id = insertTasks(jdbc, List.of(waiting)).get(0);
            return new InsertedTask(id, Scheduled.Outcome.QUEUED_AFTER_RUNNING, TaskStatus.WAITING, task.dueAt());
        }
        catch (DuplicateKeyException ex) {
            // a locking read: in a caller's REPEATABLE READ snapshot a plain one might not see the row in the way
            String select = TaskSql.SELECT_WAITING_BY_KEY.formatted(table) + " LOCK IN SHARE MODE";
            List<InsertedTask> found = jdbc.query(select, (rs, row) -> new InsertedTask(rs.getLong("id"),
                    Scheduled.Outcome.QUEUED_AFTER_RUNNING, TaskStatus.WAITING, rs.getLong("due_at")), task.type(),
                    task.key());
            return found.isEmpty() ? null : found.get(0);
        }
    }

    /** Replaces or debounces pending task {@code id}; {@code null} when it is no longer pending. */
    private @Nullable InsertedTask updatePending(JdbcTemplate jdbc, NewTask task, long id) {
        boolean replace = task.keyMode() == TaskRequest.KeyMode.REPLACE;
        int updated = replace
                ? jdbc.update(sql(TaskSql.REPLACE_PENDING.formatted(table)), task.payload(), task.dueAt(),
                        task.status().name(), task.maxAttempts(), now, id)
                : jdbc.update(sql(TaskSql.DEBOUNCE_PENDING.formatted(table)), task.dueAt(),
                        TaskSql.cappedDelay(task.maxDelayMillis()), task.queuedUpTo(), task.dueAt(),
                        TaskSql.cappedDelay(task.maxDelayMillis()), task.payload(), task.maxAttempts(), now, id);
        if (updated == 0) {
            return null;
        }
        if (replace) {
            return new InsertedTask(id, Scheduled.Outcome.REPLACED, task.status(), task.dueAt());
        }
        return jdbc.queryForObject(TaskSql.SELECT_DUE.formatted(table), (rs, row) -> new InsertedTask(id,
                Scheduled.Outcome.EXTENDED, TaskRows.status(rs), rs.getLong("due_at")), id);
    }

    /**
     * A write of several keys found one of them taken by another call since its look-up; it stored nothing. Settling
     * the keys one by one takes several writes, which must be undone together if one fails.
     */
    static final class KeysTakenMeanwhile extends RuntimeException {

        private static final long serialVersionUID = 1L;

        KeysTakenMeanwhile(DuplicateKeyException cause) {
            super("A key was taken between the look-up and the insert", cause);
        }
    }

    /**
     * A change found its key created by another call since its look-up; its transaction should be rolled back (which
     * frees the shared lock of the failed insert) and the batch written again, when the look-up finds the task.
     */
    static final class KeyCreatedMeanwhile extends RuntimeException {

        private static final long serialVersionUID = 1L;

        KeyCreatedMeanwhile(DuplicateKeyException cause) {
            super("A key was created by another call between the look-up and the insert", cause);
        }
    }

    private List<List<Integer>> chunks(List<Integer> indexes) {
        List<List<Integer>> chunks = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        long bytes = 0;
        for (int index : indexes) {
            long size = tasks.get(index).payload().length() * 3L; // upper bound of UTF-8 bytes, cheap
            if (!current.isEmpty()
                    && (current.size() == MAX_ROWS_PER_STATEMENT || bytes + size > MAX_BYTES_PER_STATEMENT)) {
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

    /** Inserts {@code rows} in one statement; their ids, in row order. */
    private List<Long> insertRows(JdbcTemplate jdbc, List<Integer> rows) {
        return insertTasks(jdbc, rows.stream().map(tasks::get).toList());
    }

    private List<Long> insertTasks(JdbcTemplate jdbc, List<NewTask> rows) {
        GeneratedIds how = ids.apply(jdbc);
        String statement = sql(how.insert(table, rows.size()));
        List<Long> inserted = jdbc.execute((Connection connection) -> {
            try (PreparedStatement ps = how.prepare(connection, statement)) {
                bindRows(ps, rows);
                return how.execute(connection, ps, rows.size());
            }
        });
        return Objects.requireNonNull(inserted, "an insert returns its ids");
    }

    /**
     * Keyed rows: look up the keys that exist (a plain read: rows committed before, or, in a caller's transaction,
     * before its snapshot or by itself), insert the rest in one statement, and if another call took one of them
     * meanwhile (the insert fails on the unique key, storing nothing), settle them one by one.
     */
    private void insertKeyed(JdbcTemplate jdbc, List<Integer> chunk, InsertedTask[] results,
            @Nullable InsertProgress last, boolean undoneTogether) {
        // A single write (autocommitted, or alone in the caller's transaction) inserts first: one round trip when the
        // keys are free, the common case; a key found taken costs more (findHolder). Writes undone together (behind a
        // savepoint, in a transaction of the queue's own, a batch written again after a key was taken) look up first,
        // as before: batches of several statements, and every call on a pool without auto-commit.
        boolean lookUpFirst = last == null || undoneTogether;
        Map<String, InsertedTask> settled = lookUpFirst ? selectByKeys(jdbc, chunk, false) : new HashMap<>();
        Map<String, Integer> missing = new LinkedHashMap<>();
        for (int index : chunk) {
            String identity = identity(index);
            if (!settled.containsKey(identity)) {
                missing.putIfAbsent(identity, index);
            }
        }
        if (!missing.isEmpty()) {
            List<Integer> rows = new ArrayList<>(missing.values());
            try {
                List<Long> inserted = last != null ? last.lastWrite(jdbc, j -> insertRows(j, rows))
                        : insertRows(jdbc, rows);
                for (int i = 0; i < rows.size(); i++) {
                    settled.put(identity(rows.get(i)), created(rows.get(i), inserted.get(i)));
                }
            }
            catch (DuplicateKeyException ex) {
                if (rows.size() > 1 && !undoneTogether) {
                    throw new KeysTakenMeanwhile(ex);
                }
                // one by one, in key order as every writer of these keys locks them; inserted first, so that no
                // locking read of a missing key leaves a gap lock in the way of another writer's insert
                for (int row : rows) {
                    settled.put(identity(row), insertOrFind(jdbc, row, rows.size() > 1, ex, last));
                }
            }
        }
        for (int index : chunk) {
            InsertedTask result = Objects.requireNonNull(settled.get(identity(index)), "every key is settled");
            if (result.created() && !Integer.valueOf(index).equals(missing.get(identity(index)))) {
                result = new InsertedTask(result.id(), false, result.status(), result.dueAt()); // a key twice here
            }
            results[index] = result;
        }
    }

    /**
     * One key: inserted (created), or found taken and read with a locking read (not created); tried again if the row
     * in its way is gone before it is read. {@code insertFirst} is false when an insert of it has just failed.
     * Alone (autocommitted, say) its insert is the batch's last write again.
     */
    private InsertedTask insertOrFind(JdbcTemplate jdbc, int row, boolean insertFirst, DuplicateKeyException taken,
            @Nullable InsertProgress last) {
        List<Integer> one = List.of(row);
        DuplicateKeyException failure = taken;
        boolean insert = insertFirst;
        for (int attempt = 0; attempt < MAX_TRIES_PER_KEY; attempt++) {
            if (insert) {
                try {
                    List<Long> inserted = last != null ? last.lastWrite(jdbc, j -> insertRows(j, one))
                            : insertRows(jdbc, one);
                    return created(row, inserted.get(0));
                }
                catch (DuplicateKeyException ex) {
                    failure = ex;
                }
            }
            InsertedTask found = last != null && last.autocommitted() ? selectByKeys(jdbc, one, true).get(identity(row))
                    : findHolder(jdbc, row);
            if (found != null) {
                return found;
            }
            insert = true;
        }
        throw failure;
    }

    /**
     * In a transaction, the live task whose key an insert of {@code row} just found taken; {@code null} when it ended
     * meanwhile (insert again). A plain read of the key would not do: a REPEATABLE READ snapshot older than that task
     * does not show it, or shows the key's earlier task. So its id comes from a locking read of the key's unique index
     * entry alone (the index holds the id), which the failed insert already holds shared, and the row itself is read
     * plainly (with a lock only when the snapshot does not show it yet): the transaction then holds nothing on the
     * row, and the task's claim, lease renewals and retries go on while it lasts. What it still holds until it ends is
     * the failed insert's shared lock on the key's index entry: the task's completion, dead-lettering or cancellation
     * releases its key, and waits for that lock (the claim and the retry keep the key, and do not).
     */
    private @Nullable InsertedTask findHolder(JdbcTemplate jdbc, int row) {
        NewTask task = tasks.get(row);
        List<Long> holder = jdbc.queryForList(TaskSql.HOLDER_OF_KEY.formatted(table), Long.class, task.type(),
                task.key());
        if (holder.isEmpty()) {
            return null;
        }
        long id = holder.get(0);
        for (String select : List.of(TaskSql.SELECT_DUE, TaskSql.SELECT_DUE + " LOCK IN SHARE MODE")) {
            List<InsertedTask> seen = jdbc.query(select.formatted(table), (rs, n) -> new InsertedTask(id, false,
                    TaskRows.status(rs), rs.getLong("due_at")), id);
            if (!seen.isEmpty()) {
                return seen.get(0);
            }
        }
        return null; // purged already: only a finished task is, so the key is free again
    }

    private InsertedTask created(int index, long id) {
        NewTask task = tasks.get(index);
        return new InsertedTask(id, true, task.status(), task.dueAt());
    }

    private Map<String, InsertedTask> selectByKeys(JdbcTemplate jdbc, List<Integer> rows, boolean locking) {
        Object[] args = new Object[rows.size() * 2];
        for (int i = 0; i < rows.size(); i++) {
            args[2 * i] = tasks.get(rows.get(i)).type();
            args[2 * i + 1] = Objects.requireNonNull(tasks.get(rows.get(i)).key(), "a keyed row's key");
        }
        Map<String, InsertedTask> found = new HashMap<>();
        String select = locking ? TaskSql.SELECT_BY_KEYS_LOCKING : TaskSql.SELECT_BY_KEYS;
        jdbc.query(select.formatted(table, TaskSql.keyMatches(rows.size())), (ResultSet rs) -> {
            found.put(identity(rs.getString("task_type"), rs.getString("task_key")),
                    new InsertedTask(rs.getLong("id"), false, TaskRows.status(rs), rs.getLong("due_at")));
        }, args);
        return found;
    }

    private void bindRows(PreparedStatement ps, List<NewTask> rows) throws SQLException {
        int p = 1;
        for (NewTask task : rows) {
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
            if (task.traceContext() == null) {
                ps.setNull(p++, Types.VARCHAR);
            }
            else {
                ps.setString(p++, task.traceContext());
            }
        }
    }

    private String identity(int index) {
        return identity(tasks.get(index).type(), tasks.get(index).key());
    }

    private static String identity(String type, @Nullable String key) {
        return type.length() + ":" + type + ":" + key;
    }
}
