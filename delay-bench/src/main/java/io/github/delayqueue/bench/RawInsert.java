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

/**
 * The library's plain insert of new tasks, done by hand: its statement ({@link RawSql#INSERT}), bound with the
 * benchmark's rows, and the ids read back as the library reads them (its {@code GeneratedIds}): on MariaDB the
 * insert's {@code RETURNING id}; on MySQL the first generated key, the rows of a multi-row insert
 * {@code auto_increment_increment} apart, read on the insert's connection right before it. So a raw loop sends the
 * server exactly what a {@code schedule()} makes it do. Keyed rows go through the same statement with
 * {@code task_key} bound: the minimum a hand-written keyed insert needs, one {@code INSERT} that the table's unique
 * {@code (task_type, live_key)} index guards, with no look-up of the key first (the library looks its keys up with
 * {@code SELECT_BY_KEYS} before that insert, to return a live task's id instead of failing).
 */
final class RawInsert {

    private final String table;

    private final boolean returning;

    private RawInsert(String table, boolean returning) {
        this.table = table;
        this.returning = returning;
    }

    /** Asks the server, as the library does once, how it gives the ids back. */
    static RawInsert on(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT VERSION()")) {
            rs.next();
            return new RawInsert(table, rs.getString(1).toLowerCase(Locale.ROOT).contains("mariadb"));
        }
    }

    /** The statement for {@code rows} rows: eight placeholders a row. */
    String sql(int rows) {
        return RawSql.INSERT.formatted(table, RawSql.valuesRows(rows)) + (returning ? RawSql.RETURNING_ID : "");
    }

    /**
     * Inserts {@code rows} rows of the benchmark's type, due at {@code dueAt} (epoch ms) in {@code status}, payloads
     * {@code firstPayload} onwards, without keys; returns their ids. Commits only if the connection is in autocommit.
     */
    List<Long> insert(Connection connection, int rows, int firstPayload, long dueAt, String status)
            throws SQLException {
        return insert(connection, rows, firstPayload, dueAt, status, null);
    }

    /**
     * The same; with a {@code keyPrefix}, each row's {@code task_key} is the prefix and its payload ({@code k-...-7}),
     * so the caller makes the keys unique.
     */
    List<Long> insert(Connection connection, int rows, int firstPayload, long dueAt, String status, String keyPrefix)
            throws SQLException {
        try (PreparedStatement ps = returning ? connection.prepareStatement(sql(rows))
                : connection.prepareStatement(sql(rows), Statement.RETURN_GENERATED_KEYS)) {
            int p = 1;
            long now = System.currentTimeMillis();
            for (int i = 0; i < rows; i++) {
                String payload = Integer.toString(firstPayload + i);
                ps.setString(p++, BenchApp.TYPE);
                ps.setString(p++, keyPrefix == null ? null : keyPrefix + payload);
                ps.setString(p++, payload);
                ps.setLong(p++, dueAt);
                ps.setString(p++, status);
                ps.setNull(p++, Types.INTEGER);
                ps.setLong(p++, now);
                ps.setLong(p++, now);
                ps.setNull(p++, Types.VARCHAR);
            }
            return execute(connection, ps, rows);
        }
    }

    private List<Long> execute(Connection connection, PreparedStatement ps, int rows) throws SQLException {
        List<Long> ids = new ArrayList<>(rows);
        if (returning) {
            ps.execute();
            try (ResultSet rs = ps.getResultSet()) {
                while (rs != null && rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        else {
            long increment = rows > 1 ? sessionIncrement(connection) : 1;
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (keys.next()) {
                    long first = keys.getLong(1);
                    for (int i = 0; i < rows; i++) {
                        ids.add(first + i * increment);
                    }
                }
            }
        }
        if (ids.size() != rows) {
            throw new SQLException("The database returned " + ids.size() + " ids for " + rows + " inserted rows");
        }
        return ids;
    }

    private static long sessionIncrement(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(RawSql.AUTO_INCREMENT_INCREMENT)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
