package io.github.delayqueue.store;

import org.jspecify.annotations.Nullable;

/**
 * A {@code RUNNING} task whose lease ran out: its instance died, stalled, or lost the database.
 *
 * @param id the task id
 * @param type the handler type
 * @param owner the process that held it
 * @param dueAt due time in epoch milliseconds
 * @param attempts attempts that started, including the abandoned one if its handler had started
 * @param maxAttempts attempts allowed for this task alone, or {@code null} for the handler's setting
 * @param claim the number of the expired claim
 * @param started whether the handler of the expired claim had started
 */
public record ExpiredLease(long id, String type, @Nullable String owner, long dueAt, int attempts,
        @Nullable Integer maxAttempts, long claim, boolean started) {
}
