package io.github.delayqueue.store;

import java.sql.SQLException;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Translates a lock wait timeout (error 1205) to {@link CannotAcquireLockException} through both drivers, as the
 * queue's retries and its shared writes expect of a lock failure. MySQL Connector/J throws a
 * {@code SQLTransactionRollbackException} for it, which Spring's default translator maps so; MariaDB Connector/J throws
 * a plain {@code SQLException} with state {@code HY000}, which it left uncategorized. Everything else goes to the
 * template's own translator.
 */
final class LockWaitTimeouts implements SQLExceptionTranslator {

    /** {@code ER_LOCK_WAIT_TIMEOUT}, the same on MySQL and MariaDB. */
    private static final int LOCK_WAIT_TIMEOUT = 1205;

    private final SQLExceptionTranslator others;

    private LockWaitTimeouts(SQLExceptionTranslator others) {
        this.others = others;
    }

    /** A template on {@code dataSource} that translates lock wait timeouts so. */
    static JdbcTemplate template(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.setExceptionTranslator(new LockWaitTimeouts(jdbc.getExceptionTranslator()));
        return jdbc;
    }

    @Override
    public @Nullable DataAccessException translate(String task, @Nullable String sql, SQLException ex) {
        if (ex.getErrorCode() == LOCK_WAIT_TIMEOUT) {
            return new CannotAcquireLockException(task + "; " + (sql != null ? "SQL [" + sql + "]; " : "")
                    + ex.getMessage(), ex);
        }
        return others.translate(task, sql, ex);
    }
}
