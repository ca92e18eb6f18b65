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
 * How the server gives back the ids of a plain multi-row insert, and the insert that reads them.
 *
 * @param returning MariaDB: {@code INSERT ... RETURNING id} names every id, whatever the driver (MariaDB
 *     Connector/J reports only the first generated key of a multi-row insert)
 * @param increment MySQL: the ids of one multi-row insert are consecutive (a "simple insert" in every
 *     {@code innodb_autoinc_lock_mode}) and {@code auto_increment_increment} apart, which is how Connector/J
 *     computes them too
 */
record GeneratedIds(boolean returning, int increment) {

    /** Asks the server which it is. */
    static GeneratedIds of(JdbcTemplate jdbc) {
        String version = jdbc.queryForObject("SELECT VERSION()", String.class);
        Integer increment = jdbc.queryForObject("SELECT @@auto_increment_increment", Integer.class);
        return new GeneratedIds(version != null && version.toLowerCase(Locale.ROOT).contains("mariadb"),
                increment == null ? 1 : increment);
    }

    /** The plain insert of {@code rows} rows into the (quoted) {@code table}. */
    String insert(String table, int rows) {
        return TaskSql.INSERT.formatted(table, TaskSql.valuesRows(rows)) + (returning ? TaskSql.RETURNING_ID : "");
    }

    /** Prepares {@code insert} so that {@link #execute} can read the ids. */
    PreparedStatement prepare(Connection connection, String insert) throws SQLException {
        return returning ? connection.prepareStatement(insert)
                : connection.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS);
    }

    /** Runs the prepared and bound insert of {@code rows} rows; their ids, in row order. */
    List<Long> execute(PreparedStatement ps, int rows) throws SQLException {
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
        if (ids.size() != rows) {
            throw new SQLException("The database returned " + ids.size() + " ids for " + rows + " inserted rows");
        }
        return ids;
    }
}
