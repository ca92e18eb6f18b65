package io.github.delayqueue.store;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Where an insert stands, so a failure can be told apart: before the last write was sent nothing is stored; while
 * it (autocommitted) was on its way a lost connection leaves the outcome unknown. Nothing is read after it: the
 * write returns its rows' ids.
 */
final class InsertProgress {

    private final boolean autocommitted;

    private boolean lastWriteSent;

    /** @param autocommitted whether the last write commits by itself, so that its sending may have stored rows */
    InsertProgress(boolean autocommitted) {
        this.autocommitted = autocommitted;
    }

    /** Whether the last write commits by itself: whatever locks it takes end with it. */
    boolean autocommitted() {
        return autocommitted;
    }

    /** Runs the last write (again, after one that stored nothing); what it returns. */
    <T> T lastWrite(JdbcTemplate jdbc, Function<JdbcTemplate, T> write) {
        lastWriteSent = autocommitted;
        try {
            return write.apply(jdbc);
        }
        catch (DataAccessException ex) {
            if (lastWriteSent && connectionLost(ex)) {
                throw new InsertOutcomeUnknownException(ex);
            }
            throw ex;
        }
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
}
