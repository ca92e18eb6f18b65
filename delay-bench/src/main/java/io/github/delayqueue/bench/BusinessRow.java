package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The application's own row that the business-row variant writes in the same transaction as each task: an order,
 * as the smallest thing an application commits together with the task it schedules.
 */
final class BusinessRow {

    static final String TABLE = "bench_order";

    private BusinessRow() {
    }

    static void createTable(Servers servers, String database) throws SQLException {
        try (Connection connection = servers.connect(database); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + TABLE
                    + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, created_at BIGINT)");
        }
    }

    static String insertInto(String table) {
        return "INSERT INTO " + table + " (created_at) VALUES (?)";
    }

    static long count(Servers servers, String database) throws SQLException {
        try (Connection connection = servers.connect(database); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
