package io.github.delayqueue.store;

import java.sql.SQLException;

/** Tells a transaction the database rolled back to break a deadlock from other lock failures. */
final class Deadlocks {

    /**
     * SQLSTATE of a serialization failure: MySQL's and MariaDB's deadlock (error 1213), through both drivers. A lock
     * wait timeout (1205, {@code HY000}) is not one: the database rolled back only the statement that waited, and it
     * waited {@code innodb_lock_wait_timeout} already.
     */
    private static final String SERIALIZATION_FAILURE = "40001";

    private Deadlocks() {
    }

    /** Whether {@code failure} or one of its causes says the transaction was rolled back to break a deadlock. */
    static boolean victim(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && SERIALIZATION_FAILURE.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
