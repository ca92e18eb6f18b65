package io.github.delayqueue.store;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deadlock's victim is told from a lock wait timeout as each driver reports them (read off MariaDB 10.11 with
 * MySQL Connector/J 9 and MariaDB Connector/J 3): a timed-out claim is not claimed again after its long wait.
 */
class DeadlocksTest {

    @Test
    void aDeadlockIsAVictimThroughEitherDriver() {
        assertThat(Deadlocks.victim(new SQLTransactionRollbackException("Deadlock found", "40001", 1213))).isTrue();
        assertThat(Deadlocks.victim(new CannotAcquireLockException("claim",
                new SQLTransactionRollbackException("Deadlock found", "40001", 1213)))).isTrue();
    }

    @Test
    void aLockWaitTimeoutIsNotThroughEitherDriver() {
        // MySQL Connector/J: MySQLTransactionRollbackException, state 40001 as a deadlock's; MariaDB's: HY000
        assertThat(Deadlocks.victim(new SQLTransactionRollbackException("Lock wait timeout exceeded", "40001", 1205)))
            .isFalse();
        assertThat(Deadlocks.victim(new SQLException("Lock wait timeout exceeded", "HY000", 1205))).isFalse();
    }
}
