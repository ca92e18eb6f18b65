package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

/**
 * Startup advice on the JDBC socket timeout. Both MySQL Connector/J and MariaDB Connector/J wait forever by default
 * for an answer on a connection whose other end vanished without a reset (a network partition, a failover), so a
 * result write or a renewal could hang for the operating system's TCP timeout, about 15 minutes. The starter bounds
 * its own claim connection, but does not change the application's pool; it says so once in the log instead.
 */
final class JdbcTimeoutAdvice {

    private JdbcTimeoutAdvice() {
    }

    /** The warning for {@code dataSource}'s connections, or {@code null} when they time out, or cannot be asked. */
    static @Nullable String check(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return check(connection.getNetworkTimeout());
        }
        catch (SQLException | RuntimeException ex) {
            return null; // the store reports an unreachable database in its own words
        }
    }

    static @Nullable String check(int networkTimeoutMillis) {
        if (networkTimeoutMillis > 0) {
            return null;
        }
        return "JDBC connections of the delay queue's DataSource never time out a read (socketTimeout is 0): if the "
                + "database vanishes without closing the connection (a network partition, a failover), writes of "
                + "task results and lease renewals wait for the operating system's TCP timeout, many minutes. Add "
                + "connectTimeout=5000&socketTimeout=60000 (milliseconds; above your longest query) to the JDBC URL "
                + "(spring.datasource.url on Spring Boot), for MySQL Connector/J and MariaDB Connector/J alike.";
    }
}
