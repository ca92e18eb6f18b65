package io.github.delayqueue.api;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A read-only snapshot of one task.
 *
 * @param id the task id
 * @param type the handler type
 * @param key the business key, if one was given
 * @param status the status when read
 * @param dueAt when it is (or was) due
 * @param attempts attempts made so far
 * @param maxAttempts attempts allowed, or {@code null} when the handler's setting applies
 * @param lastError the last failure, cut to a bounded length
 * @param createdAt when it was scheduled
 * @param updatedAt when its row last changed
 * @since 0.1.0
 */
public record TaskView(long id, String type, @Nullable String key, TaskStatus status, Instant dueAt, int attempts,
        @Nullable Integer maxAttempts, @Nullable String lastError, Instant createdAt, Instant updatedAt) {
}
