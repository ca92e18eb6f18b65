package io.github.delayqueue.store;

import io.github.delayqueue.api.TaskStatus;

/**
 * How one claim of a task ended, written back in batches by {@link TaskStore#finish}. Each write matches the claim
 * ({@link ClaimId}), so a claim that was lost meanwhile changes nothing.
 */
public sealed interface Completion {

    long id();

    /** The number of the claim that ended. */
    long claim();

    default ClaimId claimId() {
        return new ClaimId(id(), claim());
    }

    /** The handler returned normally; its attempt counts. */
    record Succeeded(long id, long claim) implements Completion {
    }

    /**
     * Back to pending for another attempt.
     *
     * @param id the task id
     * @param claim the claim that ended
     * @param status the tier it re-enters, {@code SCHEDULED} or {@code QUEUED}
     * @param dueAt the next attempt's due time
     * @param attempts the attempts the task has made from now on (an attempt not held against it is not counted)
     * @param error what went wrong this time
     */
    record Retry(long id, long claim, TaskStatus status, long dueAt, int attempts, String error)
            implements Completion {
    }

    /**
     * Dead letter, with the reason.
     *
     * @param id the task id
     * @param claim the claim that ended
     * @param attempts the attempts the task made
     * @param error why it failed for good
     */
    record Failed(long id, long claim, int attempts, String error) implements Completion {
    }

    /**
     * Parked ({@link TaskStatus#PARKED}): its payload does not bind to its handler; kept until an operator re-runs it.
     *
     * @param id the task id
     * @param claim the claim that ended
     * @param attempts the attempts the task made
     * @param error why the payload does not bind
     */
    record Parked(long id, long claim, int attempts, String error) implements Completion {
    }
}
