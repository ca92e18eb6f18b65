package io.github.delayqueue.store;

import java.sql.SQLException;

/** Tells a transaction the database rolled back to break a deadlock from other lock failures. */
final class Deadlocks {

    /**
     * {@code ER_LOCK_DEADLOCK}, the same on MySQL and MariaDB, through both drivers. Not the SQL state: MySQL
     * Connector/J gives a lock wait timeout (1205) state {@code 40001} too, as a deadlock's, where MariaDB Connector/J
     * gives it {@code HY000}; a statement that timed out waited {@code innodb_lock_wait_timeout} already.
     */
    static final int DEADLOCK = 1213;

    private Deadlocks() {
    }

    /** Whether {@code failure} or one of its causes says the transaction was rolled back to break a deadlock. */
    static boolean victim(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getErrorCode() == DEADLOCK) {
                return true;
            }
        }
        return false;
    }
}
