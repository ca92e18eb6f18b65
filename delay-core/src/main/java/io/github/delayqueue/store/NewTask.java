package io.github.delayqueue.store;

import io.github.delayqueue.api.TaskStatus;
import org.jspecify.annotations.Nullable;

/**
 * A validated task about to be inserted.
 *
 * @param type the handler type
 * @param key the business key, or {@code null}
 * @param payload the payload as JSON text
 * @param dueAt due time in epoch milliseconds
 * @param status {@link TaskStatus#SCHEDULED} or {@link TaskStatus#QUEUED}, chosen by the tier
 * @param maxAttempts attempts allowed for this task alone, or {@code null} for the handler's setting
 */
public record NewTask(String type, @Nullable String key, String payload, long dueAt, TaskStatus status,
        @Nullable Integer maxAttempts) {
}
