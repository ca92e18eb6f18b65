package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.store.TaskSchema;

import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The soak's starting table, as a queue that has run for a while has it: many {@code SUCCEEDED} rows that finished
 * long ago (the purge's work) and many {@code SCHEDULED} rows due days ahead (what the gauges, health and endpoint
 * count), loaded before the instances start. The table is made by the library's own migrations ({@link TaskSchema},
 * with the history table the instances will look for), then filled with {@code INSERT ... SELECT} from a numbers
 * table, {@value #CHUNK} rows a statement, which loads millions of rows in minutes rather than hours.
 */
final class Preload {

    static final String FINISHED_TYPE = "bench.finished";

    static final String FUTURE_TYPE = "bench.future";

    static final int CHUNK = 50_000;

    /** Finished rows: due, and finished, before this long ago, far beyond any retention a soak uses. */
    static final Duration FINISHED_AGO = Duration.ofDays(2);

    /** Future rows: due from this far ahead on, beyond any hybrid threshold, so they stay in the database. */
    static final Duration FUTURE_AHEAD = Duration.ofDays(2);

    private static final String NUMBERS = "bench_numbers";

    private Preload() {
    }

    static void schema(Servers servers, String database, Map<String, String> properties) {
        // no Spring context has set up logging yet; Flyway's progress lines are not the benchmark's output
        LoggingSystem.get(Preload.class.getClassLoader()).setLogLevel("org.flywaydb", LogLevel.WARN);
        DelayQueueProperties.Jdbc jdbc = new DelayQueueProperties.Jdbc();
        jdbc.setTableName(properties.getOrDefault("delay.jdbc.table-name", jdbc.getTableName()));
        jdbc.setSchemaHistoryTable(properties.get("delay.jdbc.schema-history-table"));
        DriverManagerDataSource dataSource = new DriverManagerDataSource(servers.urlFor(database), servers.user,
                servers.password);
        new TaskSchema(dataSource, jdbc.getTableName(), jdbc.resolvedSchemaHistoryTable()).migrate();
    }

    /** Loads the rows; returns what was loaded and how fast. */
    static Map<String, Object> load(Servers servers, String database, String table, long finished, long future)
            throws SQLException {
        Map<String, Object> result = new LinkedHashMap<>();
        long start = System.nanoTime();
        long now = System.currentTimeMillis();
        try (Connection connection = servers.connect(database)) {
            numbers(connection, (int) Math.min(CHUNK, Math.max(finished, future)));
            // row r = offset + n of the finished ones: due 10 ms before row r - 1, going back from FINISHED_AGO,
            // created a minute before it was due, finished 100 ms after
            long finishedBase = now - FINISHED_AGO.toMillis();
            chunks(connection, table, finished, """
                    INSERT INTO %1$s (task_type, task_key, payload, due_at, status, attempts, created_at, updated_at)
                    SELECT '%2$s', NULL, '0', due, 'SUCCEEDED', 1, due - 60000, due + 100
                    FROM (SELECT ? - (? + n) * 10 AS due FROM %3$s WHERE n <= ?) numbered"""
                .formatted(table, FINISHED_TYPE, NUMBERS), (ps, offset, rows) -> {
                    ps.setLong(1, finishedBase);
                    ps.setLong(2, offset);
                    ps.setInt(3, rows);
                });
            // row r of the future ones: due 100 ms after row r - 1, from FUTURE_AHEAD on; scheduled now
            long futureBase = now + FUTURE_AHEAD.toMillis();
            chunks(connection, table, future, """
                    INSERT INTO %1$s (task_type, task_key, payload, due_at, status, attempts, created_at, updated_at)
                    SELECT '%2$s', NULL, '0', ? + (? + n) * 100, 'SCHEDULED', 0, ?, ?
                    FROM %3$s WHERE n <= ?""".formatted(table, FUTURE_TYPE, NUMBERS), (ps, offset, rows) -> {
                    ps.setLong(1, futureBase);
                    ps.setLong(2, offset);
                    ps.setLong(3, now);
                    ps.setLong(4, now);
                    ps.setInt(5, rows);
                });
            try (Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE " + NUMBERS);
                // statistics as a table that grew over time would have them
                statement.execute("ANALYZE TABLE " + table);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        result.put("preload_finished", finished);
        result.put("preload_future", future);
        result.put("preload_s", Stats.round(seconds));
        result.put("preload_rows_per_s", Stats.round((finished + future) / Math.max(seconds, 1e-9)));
        return result;
    }

    /** A table of the numbers 1..count, by multi-row INSERTs of 1,000. */
    private static void numbers(Connection connection, int count) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + NUMBERS);
            statement.execute("CREATE TABLE " + NUMBERS + " (n INT NOT NULL PRIMARY KEY)");
        }
        for (int from = 1; from <= count; from += 1000) {
            int rows = Math.min(1000, count - from + 1);
            String sql = "INSERT INTO " + NUMBERS + " (n) VALUES "
                    + String.join(", ", Collections.nCopies(rows, "(?)"));
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                for (int i = 0; i < rows; i++) {
                    ps.setInt(i + 1, from + i);
                }
                ps.executeUpdate();
            }
        }
    }

    private interface Binder {
        void bind(PreparedStatement statement, long offset, int rows) throws SQLException;
    }

    /** {@code total} rows, {@value #CHUNK} a statement (auto-commit: no transaction of millions of rows). */
    private static void chunks(Connection connection, String table, long total, String sql, Binder binder)
            throws SQLException {
        long logged = System.nanoTime();
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (long offset = 0; offset < total; offset += CHUNK) {
                int rows = (int) Math.min(CHUNK, total - offset);
                binder.bind(ps, offset, rows);
                ps.executeUpdate();
                if (System.nanoTime() - logged > 10_000_000_000L) {
                    BenchRun.log("preload: " + (offset + rows) + " of " + total + " rows into " + table);
                    logged = System.nanoTime();
                }
            }
        }
    }
}
