package io.github.delayqueue.store;

import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.TaskStatus;

/**
 * The outcome of inserting one {@link NewTask}: its id, what happened, and the state of the task that now carries it.
 *
 * @param id the task id
 * @param outcome created; or, when a live task held the key, kept, replaced or extended
 * @param status the stored status
 * @param dueAt the stored due time
 */
public record InsertedTask(long id, Scheduled.Outcome outcome, TaskStatus status, long dueAt) {

    /** A task created, or one whose key a live task held ({@code created} false: kept). */
    public InsertedTask(long id, boolean created, TaskStatus status, long dueAt) {
        this(id, created ? Scheduled.Outcome.CREATED : Scheduled.Outcome.KEPT, status, dueAt);
    }

    /** Whether this call stored a new task. */
    public boolean created() {
        return outcome == Scheduled.Outcome.CREATED;
    }

    /** Whether this call changed the key's pending task (its due time, tier or payload). */
    public boolean changed() {
        return outcome == Scheduled.Outcome.REPLACED || outcome == Scheduled.Outcome.EXTENDED;
    }
}
