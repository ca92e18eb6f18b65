package io.github.delayqueue.store;

import java.util.Collections;

/**
 * The SQL of the task table for MySQL 8 and MariaDB 10.6+, in one place. {@code %1$s} is the table name; an
 * {@code %2$s} is a list of {@code ?} placeholders sized at the call.
 */
final class TaskSql {

    static final String COLUMNS = "id, task_type, task_key, payload, due_at, status, attempts, max_attempts, "
            + "last_error, created_at, updated_at";

    static final String CLAIM_COLUMNS = "id, task_type, task_key, payload, due_at, attempts, max_attempts, claims, "
            + "created_at";

    static final String INSERT = """
            INSERT INTO %1$s
                (task_type, task_key, payload, due_at, status, attempts, max_attempts, created_at, updated_at)
            VALUES %2$s""";

    static final String INSERT_ROW = "(?, ?, ?, ?, ?, 0, ?, ?, ?)";

    /** MariaDB returns the ids of a multi-row insert in row order; MySQL has no {@code RETURNING}. */
    static final String RETURNING_ID = " RETURNING id";

    static final String ON_DUPLICATE_KEY_KEEP = " ON DUPLICATE KEY UPDATE id = id";

    static final String SELECT_BY_KEYS = """
            SELECT id, task_type, task_key, status, due_at FROM %1$s WHERE %2$s""";

    /**
     * The same, as a locking read: inside a caller's REPEATABLE READ transaction a plain read would not see a row
     * another transaction committed after this one's snapshot, which is exactly the row a concurrent insert of the
     * same key left there.
     */
    static final String SELECT_BY_KEYS_LOCKING = SELECT_BY_KEYS + " LOCK IN SHARE MODE";

    static final String KEY_MATCH = "(task_type = ? AND task_key = ?)";

    static final String SELECT_DUE_FOR_CLAIM = """
            SELECT %2$s FROM %1$s
            WHERE status = ? AND due_at <= ?
            ORDER BY due_at
            LIMIT ?
            FOR UPDATE SKIP LOCKED""";

    static final String SELECT_IDS_FOR_CLAIM = """
            SELECT %3$s FROM %1$s
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED') AND due_at <= ?
            FOR UPDATE SKIP LOCKED""";

    /** Claims of this process whose answer it lost: claimed, never started, lease still well ahead. */
    static final String SELECT_CLAIMED_BY = """
            SELECT %2$s FROM %1$s
            WHERE status = 'RUNNING' AND owner = ? AND lease_until > ? AND started_at IS NULL""";

    /** Every claim gets the next claim number; the attempt is counted when the handler starts, not here. */
    static final String MARK_RUNNING = """
            UPDATE %1$s SET status = 'RUNNING', owner = ?, lease_until = ?, claims = claims + 1, started_at = NULL,
                updated_at = ?
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED')""";

    /*
     * The statements below change one claim each: %2$s lists the ids (so the primary key range is used whatever the
     * optimizer makes of row constructors) and %3$s the (id, claim) pairs that must match.
     */

    static final String MARK_STARTED = """
            UPDATE %1$s SET attempts = attempts + 1, started_at = ?
            WHERE id IN (%2$s) AND (id, claims) IN (%3$s) AND status = 'RUNNING' AND started_at IS NULL""";

    /** A success counts its attempt even when its start was not written yet (both went in one batch). */
    static final String MARK_SUCCEEDED = """
            UPDATE %1$s SET status = 'SUCCEEDED', lease_until = NULL, attempts = attempts + (started_at IS NULL),
                started_at = COALESCE(started_at, ?), updated_at = ?
            WHERE id IN (%2$s) AND (id, claims) IN (%3$s) AND status = 'RUNNING'""";

    static final String MARK_RETRY = """
            UPDATE %1$s SET status = ?, due_at = ?, owner = NULL, lease_until = NULL, started_at = NULL, attempts = ?,
                last_error = ?, updated_at = ?
            WHERE id = ? AND claims = ? AND status = 'RUNNING'""";

    static final String MARK_FAILED = """
            UPDATE %1$s SET status = 'FAILED', lease_until = NULL, attempts = ?, last_error = ?, updated_at = ?
            WHERE id = ? AND claims = ? AND status = 'RUNNING'""";

    /** Leaves {@code updated_at} alone: it says when the status last changed, which the purge goes by. */
    static final String EXTEND_LEASES = """
            UPDATE %1$s SET lease_until = ?
            WHERE id IN (%2$s) AND (id, claims) IN (%3$s) AND status = 'RUNNING'""";

    /** After a renewal matched fewer rows than it named: which of them are still this claim's. */
    static final String SELECT_CLAIMS = """
            SELECT id, claims FROM %1$s WHERE id IN (%2$s) AND status = 'RUNNING'""";

    /** Hands back claims whose handler never started: pending again, attempts untouched. */
    static final String RELEASE = """
            UPDATE %1$s SET status = ?, owner = NULL, lease_until = NULL, updated_at = ?
            WHERE id IN (%2$s) AND (id, claims) IN (%3$s) AND status = 'RUNNING' AND started_at IS NULL""";

    static final String SELECT_EXPIRED_LEASES = """
            SELECT id, task_type, owner, due_at, attempts, max_attempts, claims, started_at FROM %1$s
            WHERE status = 'RUNNING' AND (lease_until < ? OR lease_until IS NULL)
            LIMIT ?
            FOR UPDATE SKIP LOCKED""";

    static final String SELECT_FOR_MIGRATION = """
            SELECT id, due_at FROM %1$s
            WHERE status = 'SCHEDULED' AND due_at <= ?
            ORDER BY due_at
            LIMIT ?
            FOR UPDATE SKIP LOCKED""";

    static final String MARK_QUEUED = """
            UPDATE %1$s SET status = 'QUEUED', updated_at = ?
            WHERE id IN (%2$s) AND status = 'SCHEDULED'""";

    static final String SELECT_PENDING_PAGE = """
            SELECT id, due_at FROM %1$s
            WHERE status = ? AND (due_at > ? OR (due_at = ? AND id > ?))
            ORDER BY due_at, id
            LIMIT ?""";

    static final String SELECT_PENDING_AMONG = """
            SELECT id, due_at FROM %1$s WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED')""";

    static final String NEXT_DUE = "SELECT MIN(due_at) FROM %1$s WHERE status = ?";

    static final String CANCEL = """
            UPDATE %1$s SET status = 'CANCELLED', owner = NULL, lease_until = NULL, updated_at = ?
            WHERE id = ? AND status IN ('SCHEDULED', 'QUEUED')""";

    static final String SELECT_TYPE_FOR_UPDATE = "SELECT task_type FROM %1$s WHERE id = ? FOR UPDATE";

    static final String SELECT_ID_BY_KEY_FOR_UPDATE = """
            SELECT id FROM %1$s WHERE task_type = ? AND task_key = ? FOR UPDATE""";

    static final String RESCHEDULE = """
            UPDATE %1$s SET due_at = ?, status = ?, updated_at = ?
            WHERE id = ? AND status IN ('SCHEDULED', 'QUEUED')""";

    static final String FIND_BY_ID = "SELECT %2$s FROM %1$s WHERE id = ?";

    static final String FIND_BY_KEY = "SELECT %2$s FROM %1$s WHERE task_type = ? AND task_key = ?";

    /**
     * The server's clock in epoch microseconds. UTC_TIMESTAMP is independent of the session and server time zones;
     * UNIX_TIMESTAMP(CURRENT_TIMESTAMP) is not: it goes through the session zone and back, which is an hour off in
     * the repeated hour when daylight saving time ends.
     */
    static final String DATABASE_TIME = "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";

    /** The oldest finished rows of one status, by the {@code (status, updated_at)} index: it stops at the cutoff. */
    static final String PURGE = """
            DELETE FROM %1$s WHERE status = ? AND updated_at < ? ORDER BY updated_at LIMIT ?""";

    private TaskSql() {
    }

    /** {@code count} comma-separated placeholders. */
    static String placeholders(int count) {
        return String.join(", ", Collections.nCopies(count, "?"));
    }

    /** {@code count} comma-separated {@code (?, ?)} pairs, for {@code (id, claims) IN (...)}. */
    static String pairPlaceholders(int count) {
        return String.join(", ", Collections.nCopies(count, "(?, ?)"));
    }
}
