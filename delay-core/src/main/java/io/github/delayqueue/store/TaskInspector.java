package io.github.delayqueue.store;

import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

import io.github.delayqueue.api.TaskStatus;
import org.jspecify.annotations.Nullable;

/**
 * What an operator asks of the task table: how many tasks are where, what is overdue, which delays applications
 * request, and the one repair the queue offers, re-running a dead letter. Reads never lock rows; each call runs in a
 * statement (or transaction) of its own, with the caller's time passed in so one clock governs an answer. Every
 * answer costs the same whatever the table holds: counts are exact up to {@link #EXACT_UP_TO}, beyond that they are
 * the database's estimate and say so, and per-type figures come from a bounded sample.
 */
public interface TaskInspector {

    /** Counts up to this many are exact; larger ones are estimates of the database's index statistics. */
    int EXACT_UP_TO = 10_000;

    /**
     * The inspector of a MySQL 8 or MariaDB 10.6+ task table.
     *
     * @param dataSource where the table is
     * @param table the task table's name
     * @return the inspector
     */
    static TaskInspector jdbc(DataSource dataSource, String table) {
        return new JdbcTaskInspector(dataSource, table);
    }

    /** How many tasks are in each of {@code statuses}; a status without tasks maps to 0. */
    Map<TaskStatus, Count> countByStatus(Set<TaskStatus> statuses);

    /**
     * How many tasks there are of each type among the first {@code perStatus} tasks (by due time) of each of
     * {@code statuses}: exact for a status with fewer tasks, a sample of the most urgent ones otherwise.
     */
    List<TypeCount> countByTypeAndStatus(Set<TaskStatus> statuses, int perStatus);

    /** Pending ({@code SCHEDULED} or {@code QUEUED}) tasks due before {@code dueBefore}, and the oldest due time. */
    Overdue overdue(long dueBefore);

    /**
     * Pending tasks due before {@code dueBefore} whose type is not among {@code types}, and the oldest due time: on
     * an instance that runs {@code types}, the overdue tasks it will never claim, which wait for an instance (or
     * another application on the same table) with their handler. All overdue tasks when {@code types} is empty.
     */
    Overdue overdueOfOtherTypes(long dueBefore, Set<String> types);

    /**
     * The delays requested ({@code due_at - created_at}) by the {@code sample} most recently scheduled tasks that
     * still carry their first due time, counted at or below each of {@code boundsMillis} (ascending).
     */
    CumulativeCounts requestedDelays(List<Long> boundsMillis, int sample);

    /** Pending tasks due within each of {@code boundsMillis} (ascending) from {@code now}, overdue ones included. */
    CumulativeCounts pendingDueWithin(long now, List<Long> boundsMillis);

    /**
     * Makes a {@code FAILED} or {@code PARKED} task pending again in {@code status}, due at {@code dueAt}, with its
     * attempts reset and its last error kept until the next attempt (and its error history, to which later failures
     * add); {@code false} when it was in neither status.
     */
    boolean rerunFailed(long id, TaskStatus status, long dueAt, long now);

    /**
     * The ids of {@code PARKED} tasks of {@code type} above {@code afterId}, ascending, at most {@code limit}: the
     * pages a bulk re-run of a type's parked tasks goes through.
     */
    List<Long> parked(String type, long afterId, int limit);

    /**
     * @param type the task type
     * @param status the status
     * @param count tasks of that type in that status
     */
    record TypeCount(String type, TaskStatus status, long count) {
    }

    /**
     * A number of tasks.
     *
     * @param value the count, or the estimate
     * @param estimated {@code true} when it was over {@link #EXACT_UP_TO} and {@code value} is the database's estimate
     */
    record Count(long value, boolean estimated) {

        public static Count exact(long value) {
            return new Count(value, false);
        }
    }

    /**
     * @param count pending tasks due before the given time
     * @param oldestDueAt the earliest due time among them, epoch milliseconds, or {@code null} when there are none
     */
    record Overdue(Count count, @Nullable Long oldestDueAt) {
    }

    /**
     * @param total tasks looked at
     * @param atOrBelow for each bound, in the order given, how many of them are at or below it
     * @param estimated {@code true} when some of the figures are the database's estimates
     */
    record CumulativeCounts(long total, List<Long> atOrBelow, boolean estimated) {

        public CumulativeCounts(long total, List<Long> atOrBelow) {
            this(total, atOrBelow, false);
        }
    }
}
