package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Creates and upgrades the task table with a Flyway instance of the queue's own: migrations from
 * {@code classpath:db/delay/migration}, history in a table of its own, so it never meets the application's
 * migrations. Instances starting at once take turns under a named lock, and a second run finds nothing to do.
 */
public final class TaskSchema {

    public static final String LOCATION = "classpath:db/delay/migration";

    private static final int LOCK_TIMEOUT_SECONDS = 120;

    private final Flyway flyway;

    private final DataSource dataSource;

    private final String lockName;

    public TaskSchema(DataSource dataSource, String table, String historyTable) {
        if (!JdbcTaskStore.isValidTableName(table) || !JdbcTaskStore.isValidTableName(historyTable)) {
            throw new IllegalArgumentException("Invalid table name '" + table + "' or '" + historyTable + "'");
        }
        this.dataSource = dataSource;
        this.lockName = "delay_schema:" + historyTable;
        this.flyway = Flyway.configure(TaskSchema.class.getClassLoader())
            .dataSource(dataSource)
            .locations(LOCATION)
            .table(historyTable)
            .placeholders(Map.of("table", table))
            // The application's own tables may already be there: start our history at 0 so V1 still runs.
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .load();
    }

    /**
     * Applies the pending migrations; returns how many ran. Instances starting together take turns under a database
     * named lock: Flyway's own lock comes too late to stop a second instance from seeing the first one's fresh, empty
     * history table and refusing to baseline it.
     */
    public int migrate() {
        Integer applied = new JdbcTemplate(dataSource).execute((Connection connection) -> {
            lock(connection);
            try {
                MigrateResult result = flyway.migrate();
                return result.migrationsExecuted;
            }
            finally {
                try (PreparedStatement release = connection.prepareStatement("SELECT RELEASE_LOCK(?)")) {
                    release.setString(1, lockName);
                    release.execute();
                }
            }
        });
        return applied == null ? 0 : applied;
    }

    private void lock(Connection connection) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT GET_LOCK(?, ?)")) {
            lock.setString(1, lockName);
            lock.setInt(2, LOCK_TIMEOUT_SECONDS);
            try (ResultSet result = lock.executeQuery()) {
                if (!result.next() || result.getInt(1) != 1) {
                    throw new SQLException("Another instance held the schema lock '" + lockName + "' for more than "
                            + LOCK_TIMEOUT_SECONDS + " s while migrating the delay queue table");
                }
            }
        }
    }
}
