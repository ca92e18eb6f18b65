package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Where a write stands, so a failure can be told apart: before the last write was sent nothing is stored; while
 * it (autocommitted) was on its way a lost connection leaves the outcome unknown. Nothing is read after it: the
 * write returns what it needs (an insert its rows' ids, an update its count).
 */
final class InsertProgress {

    /** Seconds {@link #broken} waits for the connection's answer. */
    private static final int VALID_TIMEOUT_SECONDS = 2;

    /** The connection the last write commits on by itself; {@code null} when a transaction around it commits it. */
    private final @Nullable Connection autocommitting;

    private InsertProgress(@Nullable Connection autocommitting) {
        this.autocommitting = autocommitting;
    }

    /** The last write commits by itself, on {@code connection}: its sending may have stored rows. */
    static InsertProgress autocommitted(Connection connection) {
        return new InsertProgress(connection);
    }

    /** The writes run in a transaction (the caller's or one of the store's): a failure of one stored nothing. */
    static InsertProgress inTransaction() {
        return new InsertProgress(null);
    }

    /** Whether the last write commits by itself: whatever locks it takes end with it. */
    boolean autocommitted() {
        return autocommitting != null;
    }

    /** Runs the last write (again, after one that stored nothing); what it returns. */
    <T> T lastWrite(JdbcTemplate jdbc, Function<JdbcTemplate, T> write) {
        try {
            return write.apply(jdbc);
        }
        catch (DataAccessException ex) {
            if (autocommitting != null && lost(ex, autocommitting)) {
                throw new WriteOutcomeUnknownException(ex);
            }
            throw ex;
        }
    }

    /**
     * Whether the failure of a write or a commit sent on {@code connection} left its outcome unknown: the failure
     * says the connection failed, or the connection no longer answers. The second covers failures that do not say
     * so (a pool's "Connection is closed" carries no SQL state): an answer of the server, a refusal of the rows,
     * leaves the connection working, so a working connection means the failure was the server's answer and nothing
     * was stored.
     */
    static boolean lost(Throwable ex, Connection connection) {
        return connectionLost(ex) || broken(connection);
    }

    private static boolean broken(Connection connection) {
        try {
            return !connection.isValid(VALID_TIMEOUT_SECONDS);
        }
        catch (SQLException ex) {
            return true;
        }
    }

    /**
     * A failure of the connection itself, not an answer of the server: what was sent may have been applied. Told by
     * the SQL state (class 08) and the exception classes that mean it; not by {@link SQLTransientConnectionException}:
     * MariaDB Connector/J gives that class to every SQL state it does not map, a trigger's {@code SIGNAL} included.
     */
    static boolean connectionLost(@Nullable Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof SQLRecoverableException || t instanceof SQLNonTransientConnectionException
                    || t instanceof java.io.IOException) {
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
}
