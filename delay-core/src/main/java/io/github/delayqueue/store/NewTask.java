package io.github.delayqueue.store;

import io.github.delayqueue.api.TaskRequest.KeyMode;
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
 * @param keyMode what to do when a live task holds the key
 * @param maxDelayMillis for {@link KeyMode#DEBOUNCE}: the latest due time is the key's task's creation plus this
 * @param queuedUpTo the latest due time that goes to the near tier ({@link TaskStatus#QUEUED}) at this call, for a
 *     due time the store works out itself (a debounce); {@link Long#MIN_VALUE} when there is no near tier
 * @param traceContext the trace the task is scheduled in, as text of at most
 *     {@link TaskTable#MAX_TRACE_CONTEXT_LENGTH} characters that the store keeps as it is and gives back with the
 *     claim ({@link ClaimedTask#traceContext()}); {@code null} outside a trace. A change of a key's pending task
 *     (replace, debounce) keeps the trace of the request that created it
 */
public record NewTask(String type, @Nullable String key, String payload, long dueAt, TaskStatus status,
        @Nullable Integer maxAttempts, KeyMode keyMode, long maxDelayMillis, long queuedUpTo,
        @Nullable String traceContext) {

    /** No limit on how far a debounce pushes a task out. */
    public static final long NO_MAX_DELAY = Long.MAX_VALUE;

    /** A task scheduled outside a trace. */
    public NewTask(String type, @Nullable String key, String payload, long dueAt, TaskStatus status,
            @Nullable Integer maxAttempts, KeyMode keyMode, long maxDelayMillis, long queuedUpTo) {
        this(type, key, payload, dueAt, status, maxAttempts, keyMode, maxDelayMillis, queuedUpTo, null);
    }

    /** A task that keeps the key's live task, if there is one. */
    public NewTask(String type, @Nullable String key, String payload, long dueAt, TaskStatus status,
            @Nullable Integer maxAttempts) {
        this(type, key, payload, dueAt, status, maxAttempts, KeyMode.KEEP, NO_MAX_DELAY, Long.MIN_VALUE);
    }

    /** Whether this request changes the key's pending task rather than keeping it. */
    public boolean changesPending() {
        return key != null && keyMode != KeyMode.KEEP;
    }

    /**
     * The due time a debounce leaves on a pending task due at {@code currentDueAt} and created at {@code createdAt}:
     * the later of the two, never past the creation plus the limit.
     */
    public long debouncedDueAt(long currentDueAt, long createdAt) {
        long cap = maxDelayMillis == NO_MAX_DELAY ? Long.MAX_VALUE : createdAt + maxDelayMillis;
        return Math.min(Math.max(currentDueAt, dueAt), cap);
    }

    /** The tier of a due time the store worked out: this request's own status for its own due time. */
    public TaskStatus statusFor(long due) {
        if (due == dueAt) {
            return status;
        }
        return due <= queuedUpTo ? TaskStatus.QUEUED : TaskStatus.SCHEDULED;
    }
}
