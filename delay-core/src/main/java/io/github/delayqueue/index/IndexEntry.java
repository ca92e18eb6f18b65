package io.github.delayqueue.index;

/**
 * A task id and the time it falls due, in epoch milliseconds.
 *
 * @param id the task id
 * @param dueAt due time in epoch milliseconds
 */
public record IndexEntry(long id, long dueAt) {
}
