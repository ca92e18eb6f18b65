package io.github.delayqueue.bench;

import java.util.Collections;

/**
 * The library's hot-path statements, as the raw loops send them: the text of the library's {@code TaskSql}
 * (package-private there), copied, and held equal to it by {@code RawSqlTest}, which reads the library's constants
 * from its jar in every build of this module: a change of the library's SQL fails that test until it is copied here,
 * so the ceiling always runs the statements the library runs. Same placeholders as there: {@code %1$s} the table,
 * {@code %2$s} a list of {@code ?} (the insert: its rows), {@code %3$s} a list of {@code (?, ?)} pairs. The claims'
 * reads carry the columns the library's row mapper reads.
 */
final class RawSql {

    static final String CLAIM_COLUMNS = "id, task_type, task_key, payload, due_at, attempts, max_attempts, "
            + "claims, created_at, trace_context";

    /** The plain (unkeyed) insert of new tasks, {@link #INSERT_ROW} a row. */
    static final String INSERT = """
            INSERT INTO %1$s
                (task_type, task_key, payload, due_at, status, attempts, max_attempts, created_at, updated_at,
                trace_context)
            VALUES %2$s""";

    static final String INSERT_ROW = "(?, ?, ?, ?, ?, 0, ?, ?, ?, ?)";

    /** MariaDB: the insert names the ids of its rows. */
    static final String RETURNING_ID = " RETURNING id";

    /** MySQL: how far apart the ids of one multi-row insert are, on this session, now. */
    static final String AUTO_INCREMENT_INCREMENT = "SELECT @@session.auto_increment_increment";

    /** jdbc mode's claim: due rows of one status, oldest first. */
    static final String SELECT_DUE_FOR_CLAIM = "SELECT " + CLAIM_COLUMNS + " FROM %1$s\n" + """
            WHERE status = ? AND due_at <= ?
            ORDER BY due_at
            LIMIT ?
            FOR UPDATE SKIP LOCKED""";

    /** hybrid mode's claim: the ids the index popped. */
    static final String SELECT_IDS_FOR_CLAIM = "SELECT " + CLAIM_COLUMNS + " FROM %1$s\n" + """
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED') AND due_at <= ?
            FOR UPDATE SKIP LOCKED""";

    static final String MARK_RUNNING = """
            UPDATE %1$s SET status = 'RUNNING', owner = ?, lease_until = ?, claims = claims + 1, started_at = NULL,
                updated_at = ?
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED')""";

    static final String MARK_SUCCEEDED = """
            UPDATE %1$s SET status = 'SUCCEEDED', lease_until = NULL, attempts = attempts + (started_at IS NULL),
                started_at = COALESCE(started_at, ?), updated_at = ?
            WHERE id IN (%2$s) AND (id, claims) IN (%3$s) AND status = 'RUNNING'""";

    private RawSql() {
    }

    /** {@code count} comma-separated placeholders. */
    static String placeholders(int count) {
        return String.join(", ", Collections.nCopies(count, "?"));
    }

    /** {@code count} comma-separated {@code (?, ?)} pairs, for {@code (id, claims) IN (...)}. */
    static String pairPlaceholders(int count) {
        return String.join(", ", Collections.nCopies(count, "(?, ?)"));
    }

    /** {@code count} rows of {@link #INSERT_ROW}, for {@link #INSERT}. */
    static String valuesRows(int count) {
        return String.join(", ", Collections.nCopies(count, INSERT_ROW));
    }
}
