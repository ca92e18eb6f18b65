package io.github.delayqueue.store;

import java.util.Collection;
import java.util.Collections;

/**
 * The SQL of the task table for MySQL 8 and MariaDB 10.6+, in one place. Every statement takes the (quoted) table as
 * {@code %1$s}, which its user formats in once; a statement that names rows also takes {@code %2$s}, a list of
 * {@code ?} placeholders, and a statement that names claims {@code %3$s}, a list of {@code (?, ?)} pairs, both sized
 * at the call ({@link #forIds}, {@link #forClaims}). The inserts and the key lookups take their row lists as
 * {@code %2$s} ({@link #valuesRows}, {@link #keyMatches}). A statement of some types is one part per type
 * ({@link #perType}), each a range of the index it names as {@code %2$s}, joined by {@code UNION ALL} as the
 * statement's {@code %2$s}.
 */
final class TaskSql {

    static final String COLUMNS = "id, task_type, task_key, payload, due_at, status, attempts, max_attempts, "
            + "last_error, created_at, updated_at, error_history";

    static final String CLAIM_COLUMNS = "id, task_type, task_key, payload, due_at, attempts, max_attempts, claims, "
            + "created_at, trace_context";

    static final String INSERT = """
            INSERT INTO %1$s
                (task_type, task_key, payload, due_at, status, attempts, max_attempts, created_at, updated_at,
                trace_context)
            VALUES %2$s""";

    static final String INSERT_ROW = "(?, ?, ?, ?, ?, 0, ?, ?, ?, ?)";

    /** MariaDB returns the ids of a multi-row insert in row order; MySQL has no {@code RETURNING}. */
    static final String RETURNING_ID = " RETURNING id";

    /** MySQL: how far apart the ids of one multi-row insert are, on this session, now. */
    static final String AUTO_INCREMENT_INCREMENT = "SELECT @@session.auto_increment_increment";

    /** The live (pending or running) tasks of these keys: a finished task holds no key ({@code live_key}). */
    static final String SELECT_BY_KEYS = """
            SELECT id, task_type, task_key, status, due_at FROM %1$s WHERE %2$s""";

    /**
     * The same, as a locking read: inside a caller's REPEATABLE READ transaction a plain read would not see a row
     * another transaction committed after this one's snapshot, which is exactly the row whose key an insert just
     * found taken.
     */
    static final String SELECT_BY_KEYS_LOCKING = SELECT_BY_KEYS + " LOCK IN SHARE MODE";

    /**
     * The id of the live task holding a key, as a locking read of the unique index entry alone (the index holds the
     * id, so the row is neither read nor locked): after an insert failed on that entry, which it then holds shared.
     */
    static final String HOLDER_OF_KEY = "SELECT id FROM %1$s WHERE task_type = ? AND live_key = ? LOCK IN SHARE MODE";

    static final String KEY_MATCH = "(task_type = ? AND live_key = ?)";

    static final String SELECT_DUE_FOR_CLAIM = "SELECT " + CLAIM_COLUMNS + " FROM %1$s\n" + """
            WHERE status = ? AND due_at <= ?
            ORDER BY due_at
            LIMIT ?
            FOR UPDATE SKIP LOCKED""";

    static final String SELECT_IDS_FOR_CLAIM = "SELECT " + CLAIM_COLUMNS + " FROM %1$s\n" + """
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED') AND due_at <= ?
            FOR UPDATE SKIP LOCKED""";

    /**
     * One type's part of {@link #SELECT_DUE_OF_TYPES_FOR_CLAIM}: a range of the {@code (status, task_type, due_at)}
     * index (V6, named as %2$s), read in due order up to the type's own cap. It locks what it returns and skips rows
     * another claimer holds, reading on in its range for others. Alone, it is the claim of one type. The index is
     * forced: for a type with many rows, MariaDB plans the part on {@code (status, due_at)} (expecting the type's rows
     * spread evenly in due order), which walks every row of other types due first.
     */
    static final String SELECT_DUE_OF_TYPE_FOR_CLAIM = "SELECT " + CLAIM_COLUMNS + " FROM %1$s FORCE INDEX (%2$s)\n"
            + """
            WHERE status = ? AND task_type = ? AND due_at <= ?
            ORDER BY due_at
            LIMIT ?
            FOR UPDATE SKIP LOCKED""";

    /**
     * {@link #SELECT_DUE_FOR_CLAIM} of some types: %2$s is one {@link #SELECT_DUE_OF_TYPE_FOR_CLAIM} per type
     * ({@link #perType}), the oldest of all of them first. Not {@code task_type IN (...)} on the {@code (status,
     * due_at)} index: that checks the type on every row the index walks, so each claim read and passed over every
     * overdue row of the types it skips (200,499 index entries for a claim of 500 behind 200,000 of them). This reads
     * at most each type's cap of its own range. Each part locks what it reads, so the rows of a type beyond the
     * claim's {@code LIMIT} stay locked (not claimed) until the claim's transaction commits, milliseconds later:
     * another claimer meanwhile skips them and takes later ones.
     */
    static final String SELECT_DUE_OF_TYPES_FOR_CLAIM = """
            %2$s
            ORDER BY due_at
            LIMIT ?""";

    /**
     * One type's part of {@link #DUE_OF_TYPES}: its rows in a status due by a time, in due order, from the
     * {@code (status, task_type, due_at)} index (%2$s, forced as in {@link #SELECT_DUE_OF_TYPE_FOR_CLAIM}), unlocked.
     */
    static final String DUE_OF_TYPE = """
            SELECT id, due_at FROM %1$s FORCE INDEX (%2$s)
            WHERE status = ? AND task_type = ? AND due_at <= ?
            ORDER BY due_at
            LIMIT ?""";

    /**
     * %2$s is one {@link #DUE_OF_TYPE} per type ({@link #perType}), the oldest of all of them first: a plain read, for
     * a look that expects few rows or none (the hybrid sweep), whose finds are then claimed by id. A locking read
     * ({@link #SELECT_DUE_OF_TYPES_FOR_CLAIM}) of a range with few live rows does not stop at the range's end: InnoDB
     * locks each entry before it checks the entry's delete mark and the range, and skips delete-marked entries (tasks
     * that left the status, not yet purged) and entries other transactions lock, so it walks on through the next
     * range's recent past. Behind 200,000 such entries of another type that took 225 ms and 600,000 page reads on
     * MariaDB 10.11; this read, 8 ms and 441 pages.
     */
    static final String DUE_OF_TYPES = """
            %2$s
            ORDER BY due_at
            LIMIT ?""";

    /** {@link #SELECT_IDS_FOR_CLAIM} of some types: %2$s lists the ids, %3$s the types. */
    static final String SELECT_IDS_OF_TYPES_FOR_CLAIM = "SELECT " + CLAIM_COLUMNS + " FROM %1$s\n" + """
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED') AND due_at <= ? AND task_type IN (%3$s)
            FOR UPDATE SKIP LOCKED""";

    /** Claims of this process whose answer it lost: claimed, never started, lease still well ahead. */
    static final String SELECT_CLAIMED_BY = "SELECT " + CLAIM_COLUMNS + " FROM %1$s\n" + """
            WHERE status = 'RUNNING' AND owner = ? AND lease_until > ? AND started_at IS NULL""";

    /** Every claim gets the next claim number; the attempt is counted when the handler starts, not here. */
    static final String MARK_RUNNING = """
            UPDATE %1$s SET status = 'RUNNING', owner = ?, lease_until = ?, claims = claims + 1, started_at = NULL,
                updated_at = ?
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED')""";

    /*
     * The statements below change claims: %2$s lists their ids (so the primary key range is used whatever the
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

    /**
     * The failure's line ({@link ErrorHistory#entry}) appended to {@code error_history}, of which the last
     * {@link TaskTable#MAX_ERROR_HISTORY} lines are kept: in the failure's own statement, so it costs no round trip
     * and is written exactly when the compare-and-set wins. {@code CONCAT_WS} skips a {@code NULL} history.
     */
    static final String APPEND_ERROR = "    error_history = SUBSTRING_INDEX(CONCAT_WS(CHAR(10 USING utf8mb4), "
            + "error_history, ?), CHAR(10 USING utf8mb4), -" + TaskTable.MAX_ERROR_HISTORY + ")";

    static final String MARK_RETRY = """
            UPDATE %1$s SET status = ?, due_at = ?, owner = NULL, lease_until = NULL, started_at = NULL, attempts = ?,
                last_error = ?, updated_at = ?,
            """ + APPEND_ERROR + "\nWHERE id = ? AND claims = ? AND status = 'RUNNING'";

    static final String MARK_FAILED = """
            UPDATE %1$s SET status = 'FAILED', lease_until = NULL, attempts = ?, last_error = ?, updated_at = ?,
            """ + APPEND_ERROR + "\nWHERE id = ? AND claims = ? AND status = 'RUNNING'";

    /** As {@link #MARK_FAILED}, into {@code PARKED}: a payload that does not bind waits for an operator's re-run. */
    static final String MARK_PARKED = """
            UPDATE %1$s SET status = 'PARKED', lease_until = NULL, attempts = ?, last_error = ?, updated_at = ?,
            """ + APPEND_ERROR + "\nWHERE id = ? AND claims = ? AND status = 'RUNNING'";

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

    /** %2$s lists the ids, %3$s the types. */
    static final String SELECT_PENDING_AMONG_OF_TYPES = """
            SELECT id, due_at FROM %1$s
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED') AND task_type IN (%3$s)""";

    static final String NEXT_DUE = "SELECT MIN(due_at) FROM %1$s WHERE status = ?";

    /**
     * One type's part of {@link #NEXT_DUE_OF_TYPES}: the first entry of its {@code (status, task_type, due_at)} range
     * (%2$s, forced as in {@link #SELECT_DUE_OF_TYPE_FOR_CLAIM}).
     */
    static final String NEXT_DUE_OF_TYPE = """
            SELECT due_at FROM %1$s FORCE INDEX (%2$s) WHERE status = ? AND task_type = ? ORDER BY due_at LIMIT 1""";

    /**
     * %2$s is one {@link #NEXT_DUE_OF_TYPE} per type ({@link #perType}): an index entry read per type. Not
     * {@code MIN(due_at)} with {@code task_type IN (...)}, which MariaDB and MySQL planned as a scan of the whole table
     * (300,000 rows read for one answer), nor {@code ORDER BY due_at LIMIT 1} on the {@code (status, due_at)} index,
     * which walks every row of other types due before the first of these (200,000 read behind a paused type's
     * backlog).
     */
    static final String NEXT_DUE_OF_TYPES = """
            %2$s
            ORDER BY due_at
            LIMIT 1""";

    /** %1$s is the quoted table of paused types. */
    static final String PAUSED_TYPES = "SELECT task_type FROM %1$s";

    /** A pause already there keeps its time: pausing twice is one pause. */
    static final String PAUSE = "INSERT IGNORE INTO %1$s (task_type, paused_at) VALUES (?, ?)";

    static final String RESUME = "DELETE FROM %1$s WHERE task_type = ?";

    /** A limited type's row in {@code <table>_type_limits}, before its first claim; one there already stays. */
    static final String ADD_TYPE_LIMIT = "INSERT IGNORE INTO %1$s (task_type, window_start, window_starts) VALUES %2$s";

    /**
     * Locks the limited types' rows for the claim's transaction: the claims of a limited type take turns from here to
     * their commit. A row another claim holds is skipped, not waited for: that claim is taking the type now, and a
     * claim that stalled (its process frozen, its connection cut off) must not hold up every other instance's claims.
     */
    static final String LOCK_TYPE_LIMITS = """
            SELECT task_type, window_start, window_starts FROM %1$s WHERE task_type IN (%2$s)
            FOR UPDATE SKIP LOCKED""";

    /** Which of these types have a row, read without a lock: after a lock skipped some, held or missing. */
    static final String TYPE_LIMITS_THERE = "SELECT task_type FROM %1$s WHERE task_type IN (%2$s)";

    /**
     * What runs of each limited type, on every instance: claimed and not finished, under a lease not yet run out (a
     * dead instance's tasks stop counting when their lease does). Read after the lock, under READ COMMITTED, so it
     * sees every claim committed before this one took its turn.
     */
    static final String COUNT_RUNNING_OF_TYPES = """
            SELECT task_type, COUNT(*) FROM %1$s
            WHERE status = 'RUNNING' AND task_type IN (%2$s) AND lease_until > ?
            GROUP BY task_type""";

    static final String COUNT_STARTS = "UPDATE %1$s SET window_start = ?, window_starts = ? WHERE task_type = ?";

    /** A task that has not started: pending, or a follow-up waiting for its key's running task. */
    static final String CANCEL = """
            UPDATE %1$s SET status = 'CANCELLED', owner = NULL, lease_until = NULL, updated_at = ?
            WHERE id = ? AND status IN ('SCHEDULED', 'QUEUED', 'WAITING')""";

    static final String SELECT_TYPE_FOR_UPDATE = "SELECT task_type FROM %1$s WHERE id = ? FOR UPDATE";

    /** The key's live task and its waiting follow-up, if any, locked: what a cancel by key cancels. */
    static final String SELECT_ID_BY_KEY_FOR_UPDATE = """
            SELECT id FROM %1$s WHERE task_type = ? AND (live_key = ? OR waiting_key = ?) ORDER BY id FOR UPDATE""";

    /** The key's waiting follow-up ({@code runOnceMore()}). */
    static final String SELECT_WAITING_BY_KEY = """
            SELECT id, due_at FROM %1$s WHERE task_type = ? AND waiting_key = ?""";

    /**
     * Follow-ups whose key no live task holds any more: the running task they waited for has ended. Read from the
     * {@code (status, due_at)} index and the unique {@code live_key} one.
     */
    static final String SELECT_RELEASABLE = """
            SELECT w.id, w.due_at FROM %1$s w
            WHERE w.status = 'WAITING'
              AND NOT EXISTS (SELECT 1 FROM %1$s l WHERE l.task_type = w.task_type AND l.live_key = w.task_key)
            ORDER BY w.due_at
            LIMIT ?""";

    /**
     * A follow-up becomes pending, in the tier of its due time. A live task created for its key since it was read
     * makes this fail on the unique {@code live_key}: it waits for that one then.
     */
    static final String RELEASE_WAITING = """
            UPDATE %1$s SET status = CASE WHEN due_at <= ? THEN 'QUEUED' ELSE 'SCHEDULED' END, updated_at = ?
            WHERE id = ? AND status = 'WAITING'""";

    static final String RESCHEDULE = """
            UPDATE %1$s SET due_at = ?, status = ?, updated_at = ?
            WHERE id = ? AND status IN ('SCHEDULED', 'QUEUED')""";

    /** {@code replace()}: the pending task takes the request's payload, due time, tier and attempts. */
    static final String REPLACE_PENDING = """
            UPDATE %1$s SET payload = ?, due_at = ?, status = ?, max_attempts = ?, updated_at = ?
            WHERE id = ? AND status IN ('SCHEDULED', 'QUEUED')""";

    /**
     * {@code debounce()}: the pending task takes the later due time (never past its creation plus the limit), with
     * the tier of that time, and the request's payload and attempts. One statement, so it works from the row as it
     * is when it runs. The status is set first, from the old {@code due_at}: MySQL and MariaDB assign left to right.
     */
    static final String DEBOUNCE_PENDING = """
            UPDATE %1$s SET
                status = CASE WHEN LEAST(GREATEST(due_at, ?), created_at + ?) <= ? THEN 'QUEUED' ELSE 'SCHEDULED' END,
                due_at = LEAST(GREATEST(due_at, ?), created_at + ?), payload = ?, max_attempts = ?, updated_at = ?
            WHERE id = ? AND status IN ('SCHEDULED', 'QUEUED')""";

    static final String SELECT_DUE = "SELECT status, due_at FROM %1$s WHERE id = ?";

    /**
     * A page of a type's unstarted tasks (pending, or a follow-up waiting) whose key starts with a prefix ({@code LIKE}
     * with {@code !} as the escape), after a (key, id) cursor, in (key, id) order: a range of the
     * {@code (task_type, task_key)} index, which holds the id too, so no sort.
     */
    static final String SELECT_UNSTARTED_BY_PREFIX = "SELECT " + COLUMNS + " FROM %1$s\n" + """
            WHERE task_type = ? AND task_key LIKE ? ESCAPE '!' AND (task_key > ? OR (task_key = ? AND id > ?))
              AND status IN ('SCHEDULED', 'QUEUED', 'WAITING')
            ORDER BY task_key, id
            LIMIT ?""";

    /** The same for a type's tasks without a key, by id: they come before the keyed ones. */
    static final String SELECT_UNSTARTED_UNKEYED = "SELECT " + COLUMNS + " FROM %1$s\n" + """
            WHERE task_type = ? AND task_key IS NULL AND id > ? AND status IN ('SCHEDULED', 'QUEUED', 'WAITING')
            ORDER BY id
            LIMIT ?""";

    /** Moves pending tasks to one due time, in its tier (the status first, from the new time: left to right). */
    static final String MOVE_PENDING = """
            UPDATE %1$s SET status = CASE WHEN ? <= ? THEN 'QUEUED' ELSE 'SCHEDULED' END, due_at = ?, updated_at = ?
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED')""";

    /** Shifts pending tasks' due times, each into its tier (the status first, from the old due time). */
    static final String SHIFT_PENDING = """
            UPDATE %1$s SET status = CASE WHEN due_at + ? <= ? THEN 'QUEUED' ELSE 'SCHEDULED' END,
                due_at = due_at + ?, updated_at = ?
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED')""";

    static final String SELECT_UNSTARTED_FOR_UPDATE = """
            SELECT id FROM %1$s WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED', 'WAITING') FOR UPDATE""";

    /** Cancels those of some tasks that have not started. */
    static final String CANCEL_UNSTARTED = """
            UPDATE %1$s SET status = 'CANCELLED', updated_at = ?
            WHERE id IN (%2$s) AND status IN ('SCHEDULED', 'QUEUED', 'WAITING')""";

    static final String SELECT_VIEWS = "SELECT " + COLUMNS + " FROM %1$s WHERE id IN (%2$s)";

    static final String FIND_BY_ID = "SELECT " + COLUMNS + " FROM %1$s WHERE id = ?";

    /** The key's live task if it has one, else its latest finished one. */
    static final String FIND_BY_KEY = "SELECT " + COLUMNS + " FROM %1$s WHERE task_type = ? AND task_key = ?\n"
            + "ORDER BY live_key IS NULL, id DESC LIMIT 1";

    /**
     * The server's clock in epoch microseconds. UTC_TIMESTAMP is independent of the session and server time zones;
     * UNIX_TIMESTAMP(CURRENT_TIMESTAMP) is not: it goes through the session zone and back, which is an hour off in
     * the repeated hour when daylight saving time ends.
     */
    static final String DATABASE_TIME = "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";

    /**
     * The oldest finished rows of one status, read from the {@code (status, updated_at)} index alone: it stops at the
     * cutoff. A {@code DELETE ... ORDER BY updated_at LIMIT} is planned on its own by the server, and MariaDB plans it
     * on the {@code (status, due_at)} index with a filesort of every finished row (6 s at 2 million rows, a minute at
     * 10 million); this read is planned as the covering range it is.
     */
    static final String PURGE_CANDIDATES = """
            SELECT id FROM %1$s WHERE status = ? AND updated_at < ? ORDER BY updated_at LIMIT ?""";

    /** Deletes purge candidates by id, only while still finished before the cutoff (a rerun moves a row on). */
    static final String PURGE = """
            DELETE FROM %1$s WHERE id IN (%2$s) AND status = ? AND updated_at < ?""";

    private TaskSql() {
    }

    /** A debounce limit the database can add to a time without overflow: no limit is a thousand years. */
    static long cappedDelay(long maxDelayMillis) {
        return Math.min(maxDelayMillis, 1000L * 365 * 24 * 3600 * 1000);
    }

    /** A {@code LIKE} pattern for keys that start with {@code prefix}, its wildcards escaped with {@code !}. */
    static String startsWith(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
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

    /** {@code count} {@link #KEY_MATCH}es, any of which selects a row, for {@link #SELECT_BY_KEYS}. */
    static String keyMatches(int count) {
        return String.join(" OR ", Collections.nCopies(count, KEY_MATCH));
    }

    /**
     * A statement of some types that reads one range of {@code index} per type: {@code part} (formatted with the table
     * and the index) alone for one type, else {@code count} parenthesized copies of it joined by {@code UNION ALL} as
     * {@code statement}'s {@code %2$s}. One type needs no union, nor the parenthesized form, which MySQL accepts on its
     * own only from 8.0.22.
     */
    static String perType(String statement, String part, String table, String index, int count) {
        String one = part.formatted(table, index);
        if (count == 1) {
            return one;
        }
        return statement.formatted(table, String.join("\nUNION ALL\n", Collections.nCopies(count, "(" + one + ")")));
    }

    /** A statement that names {@code count} rows by id. */
    static String forIds(String template, String table, int count) {
        return template.formatted(table, placeholders(count));
    }

    /** A statement that names {@code ids} ids ({@code %2$s}) and {@code types} types ({@code %3$s}). */
    static String forIdsAndTypes(String template, String table, int ids, int types) {
        return template.formatted(table, placeholders(ids), placeholders(types));
    }

    /** A statement that names {@code count} claims: their ids, then their (id, claim) pairs. */
    static String forClaims(String template, String table, int count) {
        return template.formatted(table, placeholders(count), pairPlaceholders(count));
    }

    /** The values of a statement that names rows by id: {@code head}, the {@code ids}, then {@code tail}. */
    static Object[] args(Object[] head, Collection<Long> ids, Object... tail) {
        Object[] args = new Object[head.length + ids.size() + tail.length];
        System.arraycopy(head, 0, args, 0, head.length);
        int p = head.length;
        for (Long id : ids) {
            args[p++] = id;
        }
        System.arraycopy(tail, 0, args, p, tail.length);
        return args;
    }
}
