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
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One insert call's rows, split into multi-row statements bounded by row count and payload bytes, and written:
 * plain rows in one {@code INSERT} a chunk with their ids read back; keyed rows as an upsert that stays idempotent per
 * key, also against a concurrent insert of the same key. Where the statements run (autocommit, a transaction of its
 * own, the caller's) is {@link TaskInserts}'s choice.
 */
final class InsertBatch {

    /** Rows per multi-row statement, and payload bytes per statement, kept well under max_allowed_packet. */
    private static final int MAX_ROWS_PER_STATEMENT = 1000;

    private static final long MAX_BYTES_PER_STATEMENT = 4L * 1024 * 1024;

    private final String table;

    private final Supplier<GeneratedIds> ids;

    private final List<NewTask> tasks;

    private final long now;

    private final List<List<Integer>> plain;

    private final List<List<Integer>> keyed;

    /**
     * @param table the quoted table name
     * @param ids how the server gives back generated ids, asked only when plain rows are written
     */
    InsertBatch(String table, Supplier<GeneratedIds> ids, List<NewTask> tasks, long now) {
        this.table = table;
        this.ids = ids;
        this.tasks = tasks;
        this.now = now;
        List<Integer> plainRows = new ArrayList<>();
        List<Integer> keyedRows = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i++) {
            (tasks.get(i).key() == null ? plainRows : keyedRows).add(i);
        }
        // keyed rows in one order everywhere: two transactions inserting the same keys lock them in the same
        // order, so they wait for each other instead of deadlocking
        keyedRows.sort(Comparator.comparing((Integer i) -> tasks.get(i).type())
            .thenComparing(i -> tasks.get(i).key()));
        this.plain = chunks(plainRows);
        this.keyed = chunks(keyedRows);
    }

    /** How many write statements the batch needs. */
    int writes() {
        return plain.size() + keyed.size();
    }

    /** Writes every row through {@code jdbc}; {@code progress} watches the last write. */
    List<InsertedTask> write(JdbcTemplate jdbc, InsertProgress progress) {
        InsertedTask[] results = new InsertedTask[tasks.size()];
        int remaining = writes();
        for (List<Integer> chunk : plain) {
            if (--remaining == 0) {
                progress.lastWrite(jdbc, j -> insertPlain(j, chunk, results));
            }
            else {
                insertPlain(jdbc, chunk, results);
            }
        }
        for (List<Integer> chunk : keyed) {
            insertKeyed(jdbc, chunk, results, --remaining == 0 ? progress : null);
        }
        return List.of(results);
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

    private void insertPlain(JdbcTemplate jdbc, List<Integer> chunk, InsertedTask[] results) {
        GeneratedIds how = ids.get();
        String statement = how.insert(table, chunk.size());
        jdbc.execute((Connection connection) -> {
            try (PreparedStatement ps = how.prepare(connection, statement)) {
                bindRows(ps, chunk);
                List<Long> ids = how.execute(ps, chunk.size());
                for (int i = 0; i < chunk.size(); i++) {
                    NewTask task = tasks.get(chunk.get(i));
                    results[chunk.get(i)] = new InsertedTask(ids.get(i), true, task.status(), task.dueAt());
                }
            }
            return Boolean.TRUE;
        });
    }

    /**
     * Keyed rows: look up the keys that exist, insert the rest (a concurrent insert of the same key is absorbed by
     * the unique index), then read back their ids with a locking read, which sees the row whichever transaction
     * committed it. Three statements per chunk, whatever its size.
     */
    private void insertKeyed(JdbcTemplate jdbc, List<Integer> chunk, InsertedTask[] results,
            @Nullable InsertProgress last) {
        Map<String, InsertedTask> existing = selectByKeys(jdbc, chunk, false);
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
            String statement = TaskSql.INSERT.formatted(table, TaskSql.valuesRows(rows.size()))
                    + TaskSql.ON_DUPLICATE_KEY_KEEP;
            Consumer<JdbcTemplate> write = j -> j.execute((Connection connection) -> {
                try (PreparedStatement ps = connection.prepareStatement(statement)) {
                    bindRows(ps, rows);
                    ps.executeUpdate();
                }
                return Boolean.TRUE;
            });
            if (last != null) {
                last.lastWrite(jdbc, write);
            }
            else {
                write.accept(jdbc);
            }
            Map<String, InsertedTask> readBack;
            try {
                readBack = selectByKeys(jdbc, rows, true);
            }
            catch (DataAccessException ex) {
                throw last != null ? last.afterWrite(ex) : ex;
            }
            readBack.forEach((identity, task) -> created.put(identity,
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
                if (!Integer.valueOf(index).equals(missing.get(identity))) { // the same key twice in one batch
                    result = new InsertedTask(result.id(), false, result.status(), result.dueAt());
                }
            }
            results[index] = result;
        }
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

    private void bindRows(PreparedStatement ps, List<Integer> rows) throws SQLException {
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

    private static String identity(String type, @Nullable String key) {
        return type.length() + ":" + type + ":" + key;
    }
}
