package io.github.delayqueue.it;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.SimpleConnectionHandle;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Binds its transaction's connection to the DataSource the way Spring's {@code JpaTransactionManager} exposes a JPA
 * transaction to JDBC code (spring-orm 7, {@code doBegin}): a {@link ConnectionHolder} around a connection handle,
 * neither marked synchronized with the transaction nor transaction-active, on a connection whose auto-commit the JPA
 * provider's begin turned off. JPA itself is not among the test dependencies; this holds the queue to the binding
 * JPA makes, which is what decides whether its writes join. A transaction begun inside one of its own joins it
 * (propagation {@code REQUIRED}); no other nesting.
 */
final class JpaStyleTransactionManager extends AbstractPlatformTransactionManager {

    private static final long serialVersionUID = 1L;

    private final transient DataSource dataSource;

    JpaStyleTransactionManager(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    private static final class Transaction {

        @Nullable Connection connection;

        boolean joined;
    }

    @Override
    protected Object doGetTransaction() {
        Transaction transaction = new Transaction();
        transaction.joined = TransactionSynchronizationManager.hasResource(dataSource);
        return transaction;
    }

    /** A {@code @Transactional} method called inside one of its transactions joins it, as JPA's does. */
    @Override
    protected boolean isExistingTransaction(Object transaction) {
        return ((Transaction) transaction).joined;
    }

    @Override
    protected void doBegin(Object transaction, TransactionDefinition definition) {
        try {
            Connection connection = dataSource.getConnection();
            connection.setAutoCommit(false);
            ((Transaction) transaction).connection = connection;
            TransactionSynchronizationManager.bindResource(dataSource,
                    new ConnectionHolder(new SimpleConnectionHandle(connection)));
        }
        catch (SQLException ex) {
            throw new TransactionSystemException("begin", ex);
        }
    }

    @Override
    protected void doCommit(DefaultTransactionStatus status) {
        try {
            connection(status.getTransaction()).commit();
        }
        catch (SQLException ex) {
            throw new TransactionSystemException("commit", ex);
        }
    }

    @Override
    protected void doRollback(DefaultTransactionStatus status) {
        try {
            connection(status.getTransaction()).rollback();
        }
        catch (SQLException ex) {
            throw new TransactionSystemException("rollback", ex);
        }
    }

    @Override
    protected void doCleanupAfterCompletion(Object transaction) {
        TransactionSynchronizationManager.unbindResource(dataSource);
        Connection connection = connection(transaction);
        try {
            connection.setAutoCommit(true);
            connection.close();
        }
        catch (SQLException ex) {
            throw new TransactionSystemException("release", ex);
        }
    }

    private static Connection connection(Object transaction) {
        Connection connection = ((Transaction) transaction).connection;
        if (connection == null) {
            throw new IllegalStateException("no transaction begun");
        }
        return connection;
    }
}
