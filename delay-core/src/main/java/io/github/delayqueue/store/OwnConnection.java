package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Supplier;
import javax.sql.DataSource;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A connection from the pool for a write that does not join the caller's transaction ({@link CallerTransaction}),
 * never the one bound to the thread: what is bound then is no transaction the write may go with (an auto-commit
 * connection {@code DataSourceUtils} keeps for another resource's transaction, or, while a finished transaction's
 * {@code afterCompletion} callbacks run, its connection, whose further statements only the auto-commit reset would
 * commit). The write must have committed when the call returns, so that what follows it may run at once.
 */
final class OwnConnection {

    /** Work on the connection; {@code jdbc} runs its statements on it, translating failures as the store does. */
    @FunctionalInterface
    interface Work<T> {

        T run(Connection connection, JdbcTemplate jdbc) throws SQLException;
    }

    /** Work on a connection given before. */
    @FunctionalInterface
    interface SqlWork<T> {

        T run() throws SQLException;
    }

    /** Keeps the session's lock wait, to put it back; a user variable, so that both take one round trip. */
    private static final String SHORTEN_LOCK_WAIT = "SET @delay_queue_lock_wait = @@SESSION.innodb_lock_wait_timeout, "
            + "SESSION innodb_lock_wait_timeout = 1";

    private static final String RESTORE_LOCK_WAIT = "SET SESSION innodb_lock_wait_timeout = @delay_queue_lock_wait";

    private final DataSource dataSource;

    private final JdbcTemplate shared;

    /** @param shared the store's template, whose exception translator the connection's statements use too */
    OwnConnection(DataSource dataSource, JdbcTemplate shared) {
        this.dataSource = dataSource;
        this.shared = shared;
    }

    <T> T run(String task, Work<T> work) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        }
        catch (SQLException ex) {
            throw translate("get a connection", ex);
        }
        try {
            JdbcTemplate jdbc = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
            jdbc.setExceptionTranslator(shared.getExceptionTranslator());
            return work.run(connection, jdbc);
        }
        catch (SQLException ex) {
            throw translate(task, ex);
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

    /**
     * Runs {@code work} with the session's InnoDB lock wait cut to a second (the least MySQL takes), and puts the
     * session's own value back for the connection's next user. A statement that waits longer for a lock then fails
     * ({@code CannotAcquireLockException}) and is undone, the rest of a transaction with it when {@code work} runs
     * one of its own ({@link #inTransaction} rolls back on failure). For MySQL, whose {@code SET_VAR} hint does not
     * take InnoDB variables: two round trips, where MariaDB's {@code SET STATEMENT ... FOR} takes none
     * ({@link TaskInserts}).
     */
    <T> T withShortLockWait(Connection connection, SqlWork<T> work) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(SHORTEN_LOCK_WAIT);
        }
        try {
            return work.run();
        }
        finally {
            restoreLockWait(connection);
        }
    }

    /**
     * Quietly, as {@link #restoreQuietly}: the work's outcome stands. A connection that still works but kept the short
     * wait is closed for good, not given back to the pool, whose next user would not expect it.
     */
    private static void restoreLockWait(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute(RESTORE_LOCK_WAIT);
        }
        catch (SQLException ex) {
            try {
                if (connection.isValid(2)) {
                    connection.abort(Runnable::run);
                }
            }
            catch (SQLException | RuntimeException abortFailed) {
                // broken: the pool drops it
            }
        }
    }

    /**
     * Runs {@code work} on {@code connection} in a transaction of its own, in READ COMMITTED (no gap locks, so
     * concurrent inserts of neighbouring keys do not deadlock), and commits it; rolled back if {@code work} fails.
     * A connection lost during the commit leaves the outcome unknown ({@link WriteOutcomeUnknownException}).
     */
    <T> T inTransaction(Connection connection, Supplier<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        int isolation = connection.getTransactionIsolation();
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try {
            T result;
            try {
                result = work.get();
            }
            catch (RuntimeException ex) {
                rollbackQuietly(connection);
                throw ex;
            }
            try {
                connection.commit();
            }
            catch (SQLException ex) {
                DataAccessException translated = translate("commit", ex);
                throw InsertProgress.lost(ex, connection) ? new WriteOutcomeUnknownException(translated) : translated;
            }
            return result;
        }
        finally {
            restoreQuietly(connection, autoCommit, isolation);
        }
    }

    /**
     * Puts back what {@link #inTransaction} changed, for the connection's next user. Quietly: a connection that broke
     * during the commit fails here too, and that must not hide what the commit's own failure said (the outcome is
     * unknown), nor turn a commit that succeeded into a failure that says nothing was stored. (It did: the pool's
     * "Connection is closed" has no SQL state, so the batcher took it for a refusal of the rows and wrote them again.)
     * The pool drops a broken connection when it is given back.
     */
    private static void restoreQuietly(Connection connection, boolean autoCommit, int isolation) {
        try {
            connection.setTransactionIsolation(isolation);
            connection.setAutoCommit(autoCommit);
        }
        catch (SQLException ex) {
            // broken: nothing more can be asked of it
        }
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        }
        catch (SQLException ex) {
            // a connection that broke rolled back on the server; a deadlock rolled back the whole transaction
        }
    }

    DataAccessException translate(String task, SQLException ex) {
        DataAccessException translated = shared.getExceptionTranslator().translate(task, null, ex);
        return translated != null ? translated : new UncategorizedSQLException(task, null, ex);
    }
}
