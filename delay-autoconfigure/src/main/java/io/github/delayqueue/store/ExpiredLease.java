package io.github.delayqueue.store;

import org.jspecify.annotations.Nullable;

/**
 * A {@code RUNNING} task whose lease ran out: its instance died or lost the database.
 *
 * @param id the task id
 * @param type the handler type
 * @param owner the instance that held it
 * @param dueAt due time in epoch milliseconds
 * @param attempts attempts made, including the abandoned one
 * @param maxAttempts attempts allowed for this task alone, or {@code null} for the handler's setting
 */
public record ExpiredLease(long id, String type, @Nullable String owner, long dueAt, int attempts,
        @Nullable Integer maxAttempts) {
}
