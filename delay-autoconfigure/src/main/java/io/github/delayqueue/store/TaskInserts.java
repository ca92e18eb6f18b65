package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Writes new tasks, all or nothing. Outside a caller's transaction a call that needs one write statement runs it
 * autocommitted (one round trip); a call that needs several runs them in one transaction of its own, so a failure
 * part-way stores nothing. Inside a caller's transaction the rows go through its connection, behind a savepoint when
 * there are several statements. A connection lost while the last write or the commit was on its way leaves the
 * outcome unknown, and says so ({@link InsertOutcomeUnknownException}); every other failure stored nothing.
 */
final class TaskInserts {

    /** Rows per multi-row statement, and payload bytes per statement, kept well under max_allowed_packet. */
    private static final int MAX_ROWS_PER_STATEMENT = 1000;

    private static final long MAX_BYTES_PER_STATEMENT = 4L * 1024 * 1024;

    private final DataSource dataSource;

    private final JdbcTemplate jdbc;

    private final String table;

    private volatile @Nullable Ids ids;

    TaskInserts(DataSource dataSource, JdbcTemplate jdbc, String table) {
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.table = table;
    }

    List<InsertedTask> insert(List<NewTask> tasks, long now) {
        Batch batch = new Batch(tasks, now);
        if (joinsCallerTransaction()) {
            return batch.writes() > 1 ? behindSavepoint(batch) : batch.write(jdbc, new Progress(false));
        }
        if (batch.writes() == 1) {
            return batch.write(jdbc, new Progress(true));
        }
        return inOwnTransaction(batch);
    }

    /** Whether a transaction of the caller's holds a connection of our data source, so our rows go with it. */
    private boolean joinsCallerTransaction() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        return TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder
                && holder.isSynchronizedWithTransaction();
    }

    private List<InsertedTask> behindSavepoint(Batch batch) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            Savepoint savepoint = connection.setSavepoint();
            try {
                List<InsertedTask> inserted = batch.write(jdbc, new Progress(false));
                connection.releaseSavepoint(savepoint);
                return inserted;
            }
            catch (RuntimeException ex) {
                rollbackQuietly(connection, savepoint);
                throw ex;
            }
        }
        catch (SQLException ex) {
            throw translate("savepoint", ex);
        }
        finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private List<InsertedTask> inOwnTransaction(Batch batch) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        }
        catch (SQLException ex) {
            throw translate("get a connection", ex);
        }
        try {
            boolean autoCommit = connection.getAutoCommit();
            int isolation = connection.getTransactionIsolation();
            connection.setAutoCommit(false);
            // READ COMMITTED: no gap locks, so concurrent inserts of neighbouring keys do not deadlock
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try {
                List<InsertedTask> inserted;
                try {
                    inserted = batch.write(new JdbcTemplate(new SingleConnectionDataSource(connection, true)),
                            new Progress(false));
                }
                catch (RuntimeException ex) {
                    rollbackQuietly(connection, null);
                    throw ex;
                }
                commit(connection);
                return inserted;
            }
            finally {
                connection.setTransactionIsolation(isolation);
                connection.setAutoCommit(autoCommit);
            }
        }
        catch (SQLException ex) {
            throw translate("prepare the insert transaction", ex);
        }
        finally {
            try {
                connection.close();
            }
            catch (SQLException ex) {
                // the pool drops a connection it cannot reset
            }
        }
    }

    private void commit(Connection connection) {
        try {
            connection.commit();
        }
        catch (SQLException ex) {
            DataAccessException translated = translate("commit", ex);
            if (connectionLost(ex)) {
                throw new InsertOutcomeUnknownException(translated);
            }
            throw translated;
        }
    }

    private static void rollbackQuietly(Connection connection, @Nullable Savepoint savepoint) {
        try {
            if (savepoint == null) {
                connection.rollback();
            }
            else {
                connection.rollback(savepoint);
            }
        }
        catch (SQLException ex) {
            // a connection that broke rolled back on the server; a deadlock rolled back the whole transaction
        }
    }

    private DataAccessException translate(String task, SQLException ex) {
        DataAccessException translated = jdbc.getExceptionTranslator().translate(task, null, ex);
        return translated != null ? translated : new org.springframework.jdbc.UncategorizedSQLException(task, null, ex);
    }

    /** A failure of the connection itself, not an answer of the server: what was sent may have been applied. */
    static boolean connectionLost(@Nullable Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof SQLRecoverableException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLTransientConnectionException || t instanceof java.io.IOException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** How generated ids are read back, by server: found once. */
    private Ids ids() {
        Ids found = ids;
        if (found == null) {
            String version = jdbc.queryForObject("SELECT VERSION()", String.class);
            Integer increment = jdbc.queryForObject("SELECT @@auto_increment_increment", Integer.class);
            found = new Ids(version != null && version.toLowerCase(Locale.ROOT).contains("mariadb"),
                    increment == null ? 1 : increment);
            ids = found;
        }
        return found;
    }

    /**
     * @param returning MariaDB: {@code INSERT ... RETURNING id} names every id, whatever the driver (MariaDB
     *     Connector/J reports only the first generated key of a multi-row insert)
     * @param increment MySQL: the ids of one multi-row insert are consecutive (a "simple insert" in every
     *     {@code innodb_autoinc_lock_mode}) and {@code auto_increment_increment} apart, which is how Connector/J
     *     computes them too
     */
    private record Ids(boolean returning, int increment) {
    }

    /**
     * Where a write stands, so a failure can be told apart: before the last write was sent nothing is stored; while
     * it (autocommitted) was on its way a lost connection leaves the outcome unknown; after it returned the rows are
     * stored even if a later read fails.
     */
    private static final class Progress {

        private final boolean autocommitted;

        private boolean lastWriteSent;

        private boolean lastWriteDone;

        Progress(boolean autocommitted) {
            this.autocommitted = autocommitted;
        }

        void lastWrite(JdbcTemplate jdbc, Consumer<JdbcTemplate> write) {
            lastWriteSent = autocommitted;
            try {
                write.accept(jdbc);
                lastWriteDone = autocommitted;
            }
            catch (DataAccessException ex) {
                if (lastWriteSent && connectionLost(ex)) {
                    throw new InsertOutcomeUnknownException(ex);
                }
                throw ex;
            }
        }

        /** A read after the autocommitted write failed: the rows are stored, but their ids are not known. */
        RuntimeException afterWrite(DataAccessException ex) {
            return lastWriteDone ? new InsertOutcomeUnknownException(ex) : ex;
        }
    }

    /** One call's rows, split into statements bounded by row count and payload bytes. */
    private final class Batch {

        private final List<NewTask> tasks;

        private final long now;

        private final List<List<Integer>> plain;

        private final List<List<Integer>> keyed;

        Batch(List<NewTask> tasks, long now) {
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

        int writes() {
            return plain.size() + keyed.size();
        }

        List<InsertedTask> write(JdbcTemplate jdbc, Progress progress) {
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
            Ids how = ids();
            String statement = TaskSql.INSERT.formatted(table, String.join(", ",
                    Collections.nCopies(chunk.size(), TaskSql.INSERT_ROW)))
                    + (how.returning() ? TaskSql.RETURNING_ID : "");
            jdbc.execute((Connection connection) -> {
                try (PreparedStatement ps = how.returning() ? connection.prepareStatement(statement)
                        : connection.prepareStatement(statement, Statement.RETURN_GENERATED_KEYS)) {
                    bindRows(ps, chunk);
                    List<Long> ids = new ArrayList<>(chunk.size());
                    if (how.returning()) {
                        ps.execute();
                        try (ResultSet rs = ps.getResultSet()) {
                            while (rs != null && rs.next()) {
                                ids.add(rs.getLong(1));
                            }
                        }
                    }
                    else {
                        ps.executeUpdate();
                        try (ResultSet keys = ps.getGeneratedKeys()) {
                            if (keys.next()) {
                                long first = keys.getLong(1);
                                for (int i = 0; i < chunk.size(); i++) {
                                    ids.add(first + (long) i * how.increment());
                                }
                            }
                        }
                    }
                    if (ids.size() != chunk.size()) {
                        throw new SQLException("The database returned " + ids.size() + " ids for " + chunk.size()
                                + " inserted rows");
                    }
                    for (int i = 0; i < chunk.size(); i++) {
                        NewTask task = tasks.get(chunk.get(i));
                        results[chunk.get(i)] = new InsertedTask(ids.get(i), true, task.status(), task.dueAt());
                    }
                }
                return Boolean.TRUE;
            });
        }

        /**
         * Keyed rows: look up the keys that exist, insert the rest (a concurrent insert of the same key is absorbed
         * by the unique index), then read back their ids with a locking read, which sees the row whichever
         * transaction committed it. Three statements per chunk, whatever its size.
         */
        private void insertKeyed(JdbcTemplate jdbc, List<Integer> chunk, InsertedTask[] results,
                @Nullable Progress last) {
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
                String statement = TaskSql.INSERT.formatted(table,
                        String.join(", ", Collections.nCopies(rows.size(), TaskSql.INSERT_ROW)))
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
            String where = String.join(" OR ", Collections.nCopies(rows.size(), TaskSql.KEY_MATCH));
            Object[] args = new Object[rows.size() * 2];
            for (int i = 0; i < rows.size(); i++) {
                args[2 * i] = tasks.get(rows.get(i)).type();
                args[2 * i + 1] = Objects.requireNonNull(tasks.get(rows.get(i)).key(), "a keyed row's key");
            }
            Map<String, InsertedTask> found = new HashMap<>();
            String select = locking ? TaskSql.SELECT_BY_KEYS_LOCKING : TaskSql.SELECT_BY_KEYS;
            jdbc.query(select.formatted(table, where), (ResultSet rs) -> {
                found.put(identity(rs.getString("task_type"), rs.getString("task_key")),
                        new InsertedTask(rs.getLong("id"), false, JdbcTaskStore.status(rs), rs.getLong("due_at")));
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
    }

    private static String identity(String type, @Nullable String key) {
        return type.length() + ":" + type + ":" + key;
    }
}
