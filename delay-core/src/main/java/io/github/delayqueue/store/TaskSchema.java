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

    private static final String LOCATION = "classpath:db/delay/migration";

    private static final int LOCK_TIMEOUT_SECONDS = 120;

    private final Flyway flyway;

    private final DataSource dataSource;

    private final String table;

    private final String historyTable;

    public TaskSchema(DataSource dataSource, String table, String historyTable) {
        TableNames.requireValidTaskTable(table);
        if (!TableNames.isValidHistoryTable(historyTable) || historyTable.equalsIgnoreCase(table)) {
            throw new IllegalArgumentException("Invalid schema history table name '" + historyTable + "': use "
                    + "letters, digits and underscores, at most " + TableNames.MAX_IDENTIFIER_LENGTH
                    + " characters, and not the task table's name");
        }
        this.dataSource = dataSource;
        this.table = table;
        this.historyTable = historyTable;
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
     * history table and refusing to baseline it. Fails when the task table is still missing afterwards: the history
     * table then records the migrations of another task table.
     */
    public int migrate() {
        Integer applied = new JdbcTemplate(dataSource).execute((Connection connection) -> {
            String lockName = lockName(connection);
            lock(connection, lockName);
            try {
                MigrateResult result = flyway.migrate();
                requireTaskTable(connection);
                return result.migrationsExecuted;
            }
            finally {
                NamedLock.release(connection, lockName);
            }
        });
        return applied == null ? 0 : applied;
    }

    private String lockName(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT DATABASE()");
                ResultSet result = select.executeQuery()) {
            String database = result.next() ? result.getString(1) : null;
            return lockName(database == null ? "" : database, historyTable);
        }
    }

    /**
     * The lock is server-wide, so its name says which database and history table it guards; hashed, because MySQL 8
     * refuses lock names over 64 characters and these two names may be 128 together.
     */
    static String lockName(String database, String historyTable) {
        return NamedLock.name("delay_schema", database, historyTable);
    }

    private void lock(Connection connection, String lockName) throws SQLException {
        if (!NamedLock.acquire(connection, lockName, LOCK_TIMEOUT_SECONDS)) {
            throw new SQLException("Another instance held the schema lock '" + lockName + "' for more than "
                    + LOCK_TIMEOUT_SECONDS + " s while migrating the delay queue table");
        }
    }

    private void requireTaskTable(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM information_schema.tables "
                + "WHERE table_schema = DATABASE() AND LOWER(table_name) = LOWER(?)")) {
            select.setString(1, table);
            try (ResultSet result = select.executeQuery()) {
                if (result.next() && result.getInt(1) > 0) {
                    return;
                }
            }
        }
        throw new IllegalStateException("The delay queue table '" + table + "' (delay.jdbc.table-name) does not exist, "
                + "although its schema history table '" + historyTable + "' (delay.jdbc.schema-history-table) records "
                + "the migrations as applied: that history belongs to another task table, or the table was dropped. "
                + "Give each task table a schema history table of its own (leave delay.jdbc.schema-history-table "
                + "unset for '" + TableNames.defaultHistoryTable(table) + "'), or drop '" + historyTable
                + "' if no task table uses it any more");
    }
}
