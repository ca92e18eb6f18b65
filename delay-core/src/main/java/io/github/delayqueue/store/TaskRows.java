package io.github.delayqueue.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.RowMapper;

/** How the rows of the task table are read back into the store's records, column by column. */
final class TaskRows {

    /**
     * A row read by the claim that locked it ({@link TaskSql#CLAIM_COLUMNS}), before the claim's update moved
     * {@code claims} on: the claim number is the next one.
     */
    static final RowMapper<ClaimedTask> JUST_CLAIMED = claimed(1);

    /** A row claimed earlier ({@link TaskSql#CLAIM_COLUMNS}): its claim number is the current one. */
    static final RowMapper<ClaimedTask> CLAIMED_BEFORE = claimed(0);

    static final RowMapper<DueTask> DUE = (rs, row) -> new DueTask(rs.getLong("id"), rs.getLong("due_at"));

    static final RowMapper<ClaimId> CLAIM_ID = (rs, row) -> new ClaimId(rs.getLong("id"), rs.getLong("claims"));

    static final RowMapper<ExpiredLease> EXPIRED_LEASE = (rs, row) -> new ExpiredLease(rs.getLong("id"),
            rs.getString("task_type"), rs.getString("owner"), rs.getLong("due_at"), rs.getInt("attempts"),
            nullableInt(rs, "max_attempts"), rs.getLong("claims"), nullableLong(rs, "started_at") != null);

    /** A row read with {@link TaskSql#COLUMNS}. */
    static final RowMapper<TaskView> VIEW = (rs, row) -> new TaskView(rs.getLong("id"),
            rs.getString("task_type"), rs.getString("task_key"), status(rs),
            Instant.ofEpochMilli(rs.getLong("due_at")), rs.getInt("attempts"), nullableInt(rs, "max_attempts"),
            rs.getString("last_error"), Instant.ofEpochMilli(rs.getLong("created_at")),
            Instant.ofEpochMilli(rs.getLong("updated_at")), ErrorHistory.read(rs.getString("error_history")));

    private TaskRows() {
    }

    /** The attempt is the next one either way: {@code attempts} counts only attempts that started. */
    private static RowMapper<ClaimedTask> claimed(int claimsSinceRead) {
        return (rs, row) -> new ClaimedTask(rs.getLong("id"), rs.getString("task_type"), rs.getString("task_key"),
                rs.getString("payload"), rs.getLong("due_at"), rs.getInt("attempts") + 1,
                nullableInt(rs, "max_attempts"), rs.getLong("created_at"), rs.getLong("claims") + claimsSinceRead,
                rs.getString("trace_context"));
    }

    /** The row's status; a value edited in by hand that is none of ours is an error naming the row. */
    static TaskStatus status(ResultSet rs) throws SQLException {
        String status = rs.getString("status");
        try {
            return TaskStatus.valueOf(status);
        }
        catch (IllegalArgumentException | NullPointerException ex) {
            throw new IllegalStateException("Task " + rs.getLong("id") + " has status '" + status
                    + "', which is not a status of this queue (was the row edited by hand?); the queue leaves it "
                    + "alone: set it to SCHEDULED to run it or CANCELLED to drop it");
        }
    }

    private static @Nullable Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? null : value;
    }

    private static @Nullable Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }
}
