package io.github.delayqueue.api;

/**
 * Where a task is in its life; the database row is the only place it changes.
 *
 * @since 0.1.0
 */
public enum TaskStatus {

    /** Stored in the database only; due later than the hybrid threshold, or running in {@code jdbc} mode. */
    SCHEDULED,

    /** Due soon: also indexed in Redis for a precise wake-up. */
    QUEUED,

    /** Claimed by an instance that holds a lease on it. */
    RUNNING,

    /**
     * A follow-up ({@link TaskRequest.Builder#runOnceMore()}): waits for its key's running task to end, then becomes
     * pending, due at its own due time or at once if that has passed. One per type and key.
     */
    WAITING,

    /** Its handler returned normally. */
    SUCCEEDED,

    /** Dead letter: out of attempts, payload unbindable, or no handler for its type. */
    FAILED,

    /** Cancelled before it started. */
    CANCELLED,

    /**
     * Parked: its payload did not bind to its handler's parameter type (after the type's payload upcaster, if there is
     * one), typically because the payload class changed while the task waited. It is kept, with the reason in its
     * errors, never retried and never purged, until an operator re-runs it once the handler or an upcaster can read
     * it. Like a finished task it holds its key no more, so scheduling its type and key again creates a new task.
     *
     * @since 0.1.0
     */
    PARKED;

    /**
     * Whether the task has not been claimed yet and can still be cancelled or rescheduled.
     *
     * @return {@code true} for {@link #SCHEDULED} and {@link #QUEUED}
     */
    public boolean isPending() {
        return this == SCHEDULED || this == QUEUED;
    }

    /**
     * Whether the task has ended for good (unless re-run): it holds its key no more, so scheduling its type and key
     * again creates a new task.
     *
     * @return {@code true} for {@link #SUCCEEDED}, {@link #FAILED} and {@link #CANCELLED}
     */
    public boolean isFinished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }
}
