package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.List;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * Writes new tasks ({@link InsertBatch}) all or nothing, and decides on which connection. Outside a caller's
 * transaction ({@link CallerTransaction}) the rows go through a connection of their own ({@link OwnConnection}): a
 * call that needs one write statement runs it autocommitted (one round trip); a call that needs several runs them in
 * one transaction of its own, so a failure part-way stores nothing. Inside a caller's transaction the rows go through
 * its connection, behind a savepoint when there are several statements. A single write that finds one of several
 * keys taken meanwhile stored nothing, and the batch is written again the way several statements are. A connection
 * lost while the last write or the commit was on its way leaves the outcome unknown, and says so
 * ({@link WriteOutcomeUnknownException}); every other failure stored nothing.
 */
final class TaskInserts {

    /** Times a batch with changes of keyed tasks is written again because one of its keys was created meanwhile. */
    private static final int MAX_RESTARTS = 5;

    /**
     * A lock wait of a second for one statement, on MariaDB (MySQL 8's {@code SET_VAR} hint does not take InnoDB
     * variables: there the session's is cut and put back, {@link OwnConnection#withShortLockWait}).
     */
    private static final String MARIADB_SHORT_LOCK_WAIT = "SET STATEMENT innodb_lock_wait_timeout = 1 FOR ";

    private final DataSource dataSource;

    private final JdbcTemplate jdbc;

    private final String table;

    private final OwnConnection own;

    private volatile @Nullable GeneratedIds ids;

    TaskInserts(DataSource dataSource, JdbcTemplate jdbc, String table) {
        this(dataSource, jdbc, table, null);
    }

    /** @param ids how the server gives back ids, {@code null} to ask it at the first insert (a test sets MySQL's) */
    TaskInserts(DataSource dataSource, JdbcTemplate jdbc, String table, @Nullable GeneratedIds ids) {
        this.ids = ids;
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.table = table;
        this.own = new OwnConnection(dataSource, jdbc);
    }

    /**
     * @param shortLockWait whether writes outside the caller's transaction give up on a lock after a second, when the
     *     rows have keys (the rows of several callers: {@link TaskStore#insertShared})
     */
    List<InsertedTask> insert(List<NewTask> tasks, long now, boolean shortLockWait) {
        InsertBatch batch = new InsertBatch(table, this::ids, tasks, now);
        if (CallerTransaction.joins(dataSource)) {
            if (batch.writes() > 1) {
                return behindSavepoint(batch);
            }
            try {
                return batch.write(jdbc, InsertProgress.inTransaction(), false);
            }
            catch (InsertBatch.KeysTakenMeanwhile ex) { // the one write stored nothing
                return behindSavepoint(batch);
            }
        }
        return own.run("insert", (connection, onIt) -> {
            if (!shortLockWait || !batch.hasKeys()) {
                return writeOwn(batch, connection, onIt);
            }
            if (ids(onIt).returning()) { // MariaDB: each statement carries its lock wait, no round trip of its own
                batch.prefixStatements(MARIADB_SHORT_LOCK_WAIT);
                return writeOwn(batch, connection, onIt);
            }
            return own.withShortLockWait(connection, () -> writeOwn(batch, connection, onIt));
        });
    }

    private List<InsertedTask> writeOwn(InsertBatch batch, Connection connection, JdbcTemplate onIt)
            throws SQLException {
        // a pool that hands out connections without auto-commit gets a transaction, committed here
        if (batch.writes() > 1 || !connection.getAutoCommit()) {
            return inOwnTransaction(batch, connection, onIt);
        }
        try {
            return batch.write(onIt, InsertProgress.autocommitted(connection), false);
        }
        catch (InsertBatch.KeysTakenMeanwhile ex) { // the one write stored nothing
            return inOwnTransaction(batch, connection, onIt);
        }
    }

    private List<InsertedTask> behindSavepoint(InsertBatch batch) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            Savepoint savepoint = connection.setSavepoint();
            try {
                List<InsertedTask> inserted = batch.write(jdbc, InsertProgress.inTransaction(), true);
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

    private List<InsertedTask> inOwnTransaction(InsertBatch batch, Connection connection, JdbcTemplate onIt)
            throws SQLException {
        for (int attempt = 1;; attempt++) {
            boolean restartable = attempt < MAX_RESTARTS;
            try {
                return own.inTransaction(connection,
                        () -> batch.write(onIt, InsertProgress.inTransaction(), true, restartable));
            }
            catch (InsertBatch.KeyCreatedMeanwhile ex) {
                // rolled back: written again, the look-up finds the key's task and changes it
            }
        }
    }

    private static void rollbackQuietly(Connection connection, Savepoint savepoint) {
        try {
            connection.rollback(savepoint);
        }
        catch (SQLException ex) {
            // a connection that broke rolled back on the server; a deadlock rolled back the whole transaction
        }
    }

    private DataAccessException translate(String task, SQLException ex) {
        return own.translate(task, ex);
    }

    /**
     * How generated ids are read back, by server: asked once, at the first insert, on its connection ({@code onIt}):
     * many first inserts at once, each holding a connection, must not wait for another from the pool.
     */
    private GeneratedIds ids(JdbcTemplate onIt) {
        GeneratedIds found = ids;
        if (found == null) {
            found = GeneratedIds.of(onIt);
            ids = found;
        }
        return found;
    }
}
