package io.github.delayqueue.store;

import java.sql.SQLException;
import javax.sql.DataSource;

import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one rule for whether the store's writes go with the caller's transaction: a Spring transaction is active, with
 * its synchronization, and a connection of the store's own {@link DataSource} is bound to it with auto-commit off.
 * That is what a {@code DataSourceTransactionManager} or {@code JdbcTransactionManager} of this DataSource binds, and
 * what a {@code JpaTransactionManager} that knows this DataSource exposes (it binds the JPA transaction's connection,
 * though not marked as synchronized, which is why the connection's own state decides). Every other case writes on a
 * connection of its own ({@link OwnConnection}) and commits at once: no transaction ({@code SUPPORTS},
 * {@code NOT_SUPPORTED}, none at all); a transaction of another DataSource or resource, where a connection of ours
 * bound during it is an auto-commit one that {@code DataSourceUtils} only keeps for reuse; a JTA transaction, which
 * binds nothing of ours; a transaction that is over but whose {@code afterCompletion} callbacks (Spring's
 * {@code AFTER_COMMIT} event listeners among them) still run with its connection bound and its synchronization
 * cleared; a transaction manager that never synchronizes, whose commit nothing could wait for.
 */
final class CallerTransaction {

    private CallerTransaction() {
    }

    /** No round trip: both drivers answer {@code getAutoCommit()} from the session state they keep. */
    static boolean joins(DataSource dataSource) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive()
                || !(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)
                || holder.getConnectionHandle() == null) {
            return false;
        }
        try {
            return !holder.getConnection().getAutoCommit();
        }
        catch (SQLException ex) {
            throw new CannotGetJdbcConnectionException("Could not read the auto-commit of the transaction's connection",
                    ex);
        }
    }
}
