package io.github.delayqueue.store;

import java.util.Collections;

/**
 * The SQL of the task table for MySQL 8 and MariaDB 10.6+, in one place. {@code %1$s} is the table name; an
 * {@code %2$s} is a list of {@code ?} placeholders sized at the call.
 */
final class TaskSql {

    static final String COLUMNS = "id, task_type, task_key, payload, due_at, status, attempts, max_attempts, "
            + "last_error, created_at, updated_at";

    static final String CLAIM_COLUMNS = "id, task_type, task_key, payload, due_at, attempts, max_attempts, created_at";

    static final String INSERT = """
            INSERT INTO %1$s (task_type, task_key, payload, due_at, status, attempts, max_attempts, created_at, updated_at)
            VALUES %2$s""";

    static final String INSERT_ROW = "(?, ?, ?, ?, ?, 0, ?, ?, ?)";

    static final String ON_DUPLICATE_KEY_KEEP = " ON DUPLICATE KEY UPDATE id = id";

    static final String SELECT_BY_KEYS = """
            SELECT id, task_type, task_key, status, due_at FROM %1$s WHERE %2$s""";

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

    static final String SELECT_CLAIMED_BY = """
            SELECT %2$s FROM %1$s WHERE status = 'RUNNING' AND owner = ? AND lease_until > ?""";

    static final String MARK_RUNNING = """
            UPDATE %1$s SET status = 'RUNNING', owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ?
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED')""";

    static final String MARK_SUCCEEDED = """
            UPDATE %1$s SET status = 'SUCCEEDED', lease_until = NULL, updated_at = ?
            WHERE id IN (%2$s) AND status = 'RUNNING' AND owner = ?""";

    static final String MARK_RETRY = """
            UPDATE %1$s SET status = ?, due_at = ?, owner = NULL, lease_until = NULL, last_error = ?, updated_at = ?
            WHERE id = ? AND status = 'RUNNING' AND owner <=> ?""";

    static final String MARK_FAILED = """
            UPDATE %1$s SET status = 'FAILED', lease_until = NULL, last_error = ?, updated_at = ?
            WHERE id = ? AND status = 'RUNNING' AND owner <=> ?""";

    static final String EXTEND_LEASES = """
            UPDATE %1$s SET lease_until = ?, updated_at = ?
            WHERE id IN (%2$s) AND status = 'RUNNING' AND owner = ?""";

    static final String RELEASE = """
            UPDATE %1$s SET status = ?, owner = NULL, lease_until = NULL, attempts = attempts - 1, updated_at = ?
            WHERE id IN (%2$s) AND status = 'RUNNING' AND owner = ?""";

    static final String SELECT_EXPIRED_LEASES = """
            SELECT id, task_type, owner, due_at, attempts, max_attempts FROM %1$s
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

    static final String PURGE = """
            DELETE FROM %1$s WHERE status = ? AND updated_at < ? ORDER BY due_at LIMIT ?""";

    private TaskSql() {
    }

    /** {@code count} comma-separated placeholders. */
    static String placeholders(int count) {
        return String.join(", ", Collections.nCopies(count, "?"));
    }
}
