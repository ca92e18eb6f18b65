package io.github.delayqueue.store;

/**
 * A task id with its due time, as the time index needs it.
 *
 * @param id the task id
 * @param dueAt due time in epoch milliseconds
 */
public record DueTask(long id, long dueAt) {
}
