package io.github.delayqueue.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.jdbc.datasource.AbstractDataSource;

/** A DataSource with no database behind it: it refuses every connection and counts the attempts. */
final class RefusingDataSource extends AbstractDataSource {

    private final AtomicInteger attempts = new AtomicInteger();

    @Override
    public Connection getConnection() throws SQLException {
        attempts.incrementAndGet();
        throw new SQLException("This test has no database");
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    /** How often something asked for a connection. */
    int attempts() {
        return attempts.get();
    }
}
