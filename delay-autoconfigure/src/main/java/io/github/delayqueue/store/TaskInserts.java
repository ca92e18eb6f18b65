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
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Writes new tasks ({@link InsertBatch}) all or nothing, and decides on which connection. Outside a caller's
 * transaction ({@link CallerTransaction}) a call that needs one write statement runs it autocommitted (one round
 * trip); a call that needs several runs them in one transaction of its own, so a failure part-way stores nothing.
 * Inside a caller's transaction the rows go through its connection, behind a savepoint when there are several
 * statements. A single write that finds one of several keys taken meanwhile stored nothing, and the batch is written
 * again the way several statements are. A connection lost while the last write or the commit was on its way leaves
 * the outcome unknown, and says so ({@link InsertOutcomeUnknownException}); every other failure stored nothing.
 */
final class TaskInserts {

    private final DataSource dataSource;

    private final JdbcTemplate jdbc;

    private final String table;

    private volatile @Nullable GeneratedIds ids;

    TaskInserts(DataSource dataSource, JdbcTemplate jdbc, String table) {
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.table = table;
    }

    List<InsertedTask> insert(List<NewTask> tasks, long now) {
        InsertBatch batch = new InsertBatch(table, this::ids, tasks, now);
        boolean joined = CallerTransaction.joins(dataSource);
        if (batch.writes() > 1) {
            return joined ? behindSavepoint(batch) : inOwnTransaction(batch);
        }
        try {
            return batch.write(jdbc, new InsertProgress(!joined), false);
        }
        catch (InsertBatch.KeysTakenMeanwhile ex) {
            return joined ? behindSavepoint(batch) : inOwnTransaction(batch);
        }
    }

    private List<InsertedTask> behindSavepoint(InsertBatch batch) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            Savepoint savepoint = connection.setSavepoint();
            try {
                List<InsertedTask> inserted = batch.write(jdbc, new InsertProgress(false), true);
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

    private List<InsertedTask> inOwnTransaction(InsertBatch batch) {
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
                            new InsertProgress(false), true);
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
            if (InsertProgress.connectionLost(ex)) {
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

    /** How generated ids are read back, by server: asked once, at the first insert. */
    private GeneratedIds ids() {
        GeneratedIds found = ids;
        if (found == null) {
            found = GeneratedIds.of(jdbc);
            ids = found;
        }
        return found;
    }
}
