package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.delayqueue.store.LibrarySql;

/**
 * The library's plain insert of new tasks, done by hand: {@code TaskSql.INSERT} with one row of placeholders per row,
 * the ids read back the way the library reads them (MariaDB: {@code RETURNING id}; MySQL: the first generated key
 * and {@code auto_increment_increment}), so a raw loop sends the server exactly what a {@code schedule()} makes it do.
 */
final class RawInsert {

    private final String table;

    private final boolean returning;

    private final int increment;

    private RawInsert(String table, boolean returning, int increment) {
        this.table = table;
        this.returning = returning;
        this.increment = increment;
    }

    /** Finds out, as the library does once, how this server gives the ids back. */
    static RawInsert on(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            String version;
            try (ResultSet rs = statement.executeQuery("SELECT VERSION()")) {
                rs.next();
                version = rs.getString(1);
            }
            int increment;
            try (ResultSet rs = statement.executeQuery("SELECT @@auto_increment_increment")) {
                rs.next();
                increment = rs.getInt(1);
            }
            return new RawInsert(table, version != null && version.toLowerCase(Locale.ROOT).contains("mariadb"),
                    Math.max(1, increment));
        }
    }

    /** The statement for {@code rows} rows. */
    String sql(int rows) {
        return LibrarySql.INSERT.formatted(table, LibrarySql.valuesRows(rows)) + (returning ? LibrarySql.RETURNING_ID : "");
    }

    /**
     * Inserts {@code rows} rows of the benchmark's type, due at {@code dueAt} (epoch ms) in {@code status}, payloads
     * {@code firstPayload} onwards; returns their ids. Commits only if the connection is in autocommit.
     */
    List<Long> insert(Connection connection, int rows, int firstPayload, long dueAt, String status)
            throws SQLException {
        String sql = sql(rows);
        List<Long> ids = new ArrayList<>(rows);
        try (PreparedStatement ps = returning ? connection.prepareStatement(sql)
                : connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            int p = 1;
            long now = System.currentTimeMillis();
            for (int i = 0; i < rows; i++) {
                ps.setString(p++, BenchApp.TYPE);
                ps.setString(p++, null);
                ps.setString(p++, Integer.toString(firstPayload + i));
                ps.setLong(p++, dueAt);
                ps.setString(p++, status);
                ps.setNull(p++, Types.INTEGER);
                ps.setLong(p++, now);
                ps.setLong(p++, now);
            }
            if (returning) {
                ps.execute();
                try (ResultSet rs = ps.getResultSet()) {
                    while (rs != null && rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            else {
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    if (keys.next()) {
                        long first = keys.getLong(1);
                        for (int i = 0; i < rows; i++) {
                            ids.add(first + (long) i * increment);
                        }
                    }
                }
            }
        }
        if (ids.size() != rows) {
            throw new SQLException("The raw insert got " + ids.size() + " ids for " + rows + " rows");
        }
        return ids;
    }
}
