package io.github.delayqueue.store;

import io.github.delayqueue.api.TaskStatus;

/** How one claimed task ended, written back in batches by {@link TaskStore#finish}. */
public sealed interface Completion {

    long id();

    /** The handler returned normally. */
    record Succeeded(long id) implements Completion {
    }

    /**
     * Back to pending for another attempt.
     *
     * @param id the task id
     * @param status the tier it re-enters, {@code SCHEDULED} or {@code QUEUED}
     * @param dueAt the next attempt's due time
     * @param error what went wrong this time
     */
    record Retry(long id, TaskStatus status, long dueAt, String error) implements Completion {
    }

    /** Dead letter, with the reason. */
    record Failed(long id, String error) implements Completion {
    }
}
