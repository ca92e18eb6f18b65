package io.github.delayqueue.api;

import java.time.Instant;
import java.util.List;

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
 * @param errors the errors of the task's latest failed attempts, oldest first, at most ten (the last is
 *     {@code lastError}): what went wrong on each attempt, not only the last one, for a task that failed in more
 *     than one way. Empty until the first failure; kept when a dead letter is re-run. Since 0.1.0
 * @since 0.1.0
 */
public record TaskView(long id, String type, @Nullable String key, TaskStatus status, Instant dueAt, int attempts,
        @Nullable Integer maxAttempts, @Nullable String lastError, Instant createdAt, Instant updatedAt,
        List<FailedAttempt> errors) {

    /**
     * A snapshot; {@code errors} is copied.
     *
     * @since 0.1.0
     */
    public TaskView {
        errors = List.copyOf(errors);
    }

    /**
     * A snapshot without an error history: a task that never failed, or a store that keeps none.
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
    public TaskView(long id, String type, @Nullable String key, TaskStatus status, Instant dueAt, int attempts,
            @Nullable Integer maxAttempts, @Nullable String lastError, Instant createdAt, Instant updatedAt) {
        this(id, type, key, status, dueAt, attempts, maxAttempts, lastError, createdAt, updatedAt, List.of());
    }

    /**
     * The error of one failed attempt, as {@link TaskView#errors()} keeps it.
     *
     * @param attempt the task's attempts when the failure was written: the number of the attempt that failed, or,
     *     for a claim not held against the task (its handler never started, or its instance lost the lease and
     *     stopped it), the attempts made before it; the error says which
     * @param failedAt when the failure was written, on the queue's clock
     * @param error the error, cut as {@link TaskView#lastError()} is
     * @since 0.1.0
     */
    public record FailedAttempt(int attempt, Instant failedAt, String error) {
    }
}
