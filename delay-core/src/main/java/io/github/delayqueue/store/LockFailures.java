package io.github.delayqueue.store;

import java.sql.SQLException;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Tells the two lock failures apart, through both drivers, as {@link TaskStore}'s contract asks: a lock wait timeout
 * (error 1205) becomes {@link CannotAcquireLockException} (the statement waited {@code innodb_lock_wait_timeout} in
 * vain; waiting again would most likely wait as long), a deadlock (1213) a plain
 * {@link PessimisticLockingFailureException} (the database rolled the transaction back; a fresh start usually
 * succeeds). Spring's default translator cannot tell them apart: it maps every {@code SQLTransactionRollbackException}
 * with state {@code 40001} to {@code CannotAcquireLockException}, and MariaDB Connector/J's lock wait timeout, a plain
 * {@code SQLException} with state {@code HY000}, it leaves uncategorized. Everything else goes to the template's own
 * translator.
 */
final class LockFailures implements SQLExceptionTranslator {

    /** {@code ER_LOCK_WAIT_TIMEOUT}, the same on MySQL and MariaDB. */
    private static final int LOCK_WAIT_TIMEOUT = 1205;

    private final SQLExceptionTranslator others;

    private LockFailures(SQLExceptionTranslator others) {
        this.others = others;
    }

    /** A template on {@code dataSource} that translates lock failures so. */
    static JdbcTemplate template(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.setExceptionTranslator(new LockFailures(jdbc.getExceptionTranslator()));
        return jdbc;
    }

    @Override
    public @Nullable DataAccessException translate(String task, @Nullable String sql, SQLException ex) {
        return switch (ex.getErrorCode()) {
            case LOCK_WAIT_TIMEOUT -> new CannotAcquireLockException(message(task, sql, ex), ex);
            case Deadlocks.DEADLOCK -> new PessimisticLockingFailureException(message(task, sql, ex), ex);
            default -> others.translate(task, sql, ex);
        };
    }

    private static String message(String task, @Nullable String sql, SQLException ex) {
        return task + "; " + (sql != null ? "SQL [" + sql + "]; " : "") + ex.getMessage();
    }
}
