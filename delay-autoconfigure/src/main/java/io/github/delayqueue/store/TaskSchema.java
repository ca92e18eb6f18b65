package io.github.delayqueue.store;

import java.util.Map;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Creates and upgrades the task table with a Flyway instance of the queue's own: migrations from
 * {@code classpath:db/delay/migration}, history in a table of its own, so it never meets the application's
 * migrations. Flyway takes a database lock while it migrates, so several instances starting at once are safe, and a
 * second run finds nothing to do.
 */
public final class TaskSchema {

    public static final String LOCATION = "classpath:db/delay/migration";

    private final Flyway flyway;

    public TaskSchema(DataSource dataSource, String table, String historyTable) {
        if (!JdbcTaskStore.isValidTableName(table) || !JdbcTaskStore.isValidTableName(historyTable)) {
            throw new IllegalArgumentException("Invalid table name '" + table + "' or '" + historyTable + "'");
        }
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

    /** Applies the pending migrations; returns how many ran. */
    public int migrate() {
        MigrateResult result = flyway.migrate();
        return result.migrationsExecuted;
    }
}
