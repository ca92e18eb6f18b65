package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The library's own statements ({@link TaskSql}, package-private), handed to the benchmark's raw loops so they run
 * exactly what the library's hot path runs and cannot drift from it: a change of the library's SQL changes the
 * ceiling with it, and a renamed statement stops the benchmark from compiling. This class sits in the library's
 * package only for that access; it is part of the benchmark jar, never of the library's. Same placeholders as
 * there: {@code %1$s} the table, {@code %2$s} a list of {@code ?} (the insert: its rows), {@code %3$s} a list of
 * {@code (?, ?)} pairs. The claims' reads carry the columns the library's row mapper reads.
 */
public final class LibrarySql {

    /** jdbc mode's claim: due rows of one status, oldest first. */
    public static final String SELECT_DUE_FOR_CLAIM = TaskSql.SELECT_DUE_FOR_CLAIM;

    /** hybrid mode's claim: the ids the index popped. */
    public static final String SELECT_IDS_FOR_CLAIM = TaskSql.SELECT_IDS_FOR_CLAIM;

    public static final String MARK_RUNNING = TaskSql.MARK_RUNNING;

    public static final String MARK_STARTED = TaskSql.MARK_STARTED;

    public static final String MARK_SUCCEEDED = TaskSql.MARK_SUCCEEDED;

    public static final String EXTEND_LEASES = TaskSql.EXTEND_LEASES;

    public static final String SELECT_CLAIMED_BY = TaskSql.SELECT_CLAIMED_BY;

    public static final String SELECT_EXPIRED_LEASES = TaskSql.SELECT_EXPIRED_LEASES;

    public static final String SELECT_FOR_MIGRATION = TaskSql.SELECT_FOR_MIGRATION;

    public static final String PURGE = TaskSql.PURGE;

    private LibrarySql() {
    }

    /** {@code count} comma-separated placeholders, as the library makes them. */
    public static String placeholders(int count) {
        return TaskSql.placeholders(count);
    }

    /** {@code count} comma-separated {@code (?, ?)} pairs, as the library makes them. */
    public static String pairPlaceholders(int count) {
        return TaskSql.pairPlaceholders(count);
    }

    /**
     * The library's plain (unkeyed) insert on one server: its statement, prepared and run the way the library runs
     * it, the ids read back as the library reads them.
     */
    public static final class PlainInsert {

        private final GeneratedIds ids;

        private final String table;

        private PlainInsert(GeneratedIds ids, String table) {
            this.ids = ids;
            this.table = table;
        }

        /** Asks the server, as the library does once, how it gives the ids back. */
        public static PlainInsert on(Connection connection, String table) {
            return new PlainInsert(GeneratedIds.of(new JdbcTemplate(new SingleConnectionDataSource(connection, true))),
                    table);
        }

        /** The statement for {@code rows} rows: eight placeholders a row (see {@code TaskSql.INSERT_ROW}). */
        public String sql(int rows) {
            return ids.insert(table, rows);
        }

        public PreparedStatement prepare(Connection connection, int rows) throws SQLException {
            return ids.prepare(connection, sql(rows));
        }

        /**
         * Runs the prepared and bound statement of {@code rows} rows on {@code connection}; their ids, in row order
         * (on MySQL, a multi-row insert reads the session's {@code auto_increment_increment} first, as the library
         * does).
         */
        public List<Long> execute(Connection connection, PreparedStatement ps, int rows) throws SQLException {
            return ids.execute(connection, ps, rows);
        }
    }
}
