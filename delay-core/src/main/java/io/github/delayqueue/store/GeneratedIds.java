package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How the server gives back the ids of a multi-row insert, and the insert that reads them.
 *
 * @param returning MariaDB: {@code INSERT ... RETURNING id} names every id, whatever the driver (MariaDB
 *     Connector/J reports only the first generated key of a multi-row insert). MySQL has no {@code RETURNING}: it
 *     reports the first generated key, and InnoDB gives the rows of one multi-row {@code VALUES} insert (a "simple
 *     insert") consecutive values in every {@code innodb_autoinc_lock_mode}, {@code auto_increment_increment} apart.
 *     That increment is the session's and can change under a long-lived store (a {@code SET SESSION} on a pooled
 *     connection, a new global value that new connections take, as Group Replication sets), so it is read on the
 *     insert's own connection right before each multi-row insert; a single-row insert needs none.
 */
record GeneratedIds(boolean returning) {

    /** Asks the server which it is. */
    static GeneratedIds of(JdbcTemplate jdbc) {
        String version = jdbc.queryForObject("SELECT VERSION()", String.class);
        return new GeneratedIds(version != null && version.toLowerCase(Locale.ROOT).contains("mariadb"));
    }

    /** The insert of {@code rows} rows into the (quoted) {@code table}. */
    String insert(String table, int rows) {
        return TaskSql.INSERT.formatted(table, TaskSql.valuesRows(rows)) + (returning ? TaskSql.RETURNING_ID : "");
    }

    /** Prepares {@code insert} so that {@link #execute} can read the ids. */
    PreparedStatement prepare(Connection connection, String insert) throws SQLException {
        return returning ? connection.prepareStatement(insert)
                : connection.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS);
    }

    /** Runs the prepared and bound insert of {@code rows} rows on {@code connection}; their ids, in row order. */
    List<Long> execute(Connection connection, PreparedStatement ps, int rows) throws SQLException {
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
                ResultSet rs = statement.executeQuery(TaskSql.AUTO_INCREMENT_INCREMENT)) {
            if (!rs.next() || rs.getLong(1) < 1) {
                throw new SQLException("The database reported no auto_increment_increment");
            }
            return rs.getLong(1);
        }
    }
}
