package io.github.delayqueue.store;

import io.github.delayqueue.api.TaskStatus;

/**
 * The outcome of inserting one {@link NewTask}: its id and, for a duplicate key, the state of the task that was
 * already there.
 *
 * @param id the task id
 * @param created {@code false} when a task with the same type and key already existed
 * @param status the stored status
 * @param dueAt the stored due time
 */
public record InsertedTask(long id, boolean created, TaskStatus status, long dueAt) {
}
