package io.github.delayqueue.api;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Schedules tasks to run later on any instance that shares the queue's database. A task is a type (which
 * {@link DelayedHandler} runs it), a payload (stored as JSON) and a due time. Called inside a Spring transaction the
 * task is written through the same connection and commits or rolls back with the caller's data; outside one it is
 * committed before the method returns. Every method throws {@link IllegalArgumentException} for bad input and
 * {@link DelayQueueException} when the database cannot be reached; no accepted task is ever lost.
 */
public interface DelayQueue {

    /** Schedules {@code payload} for the handler of {@code type} after {@code delay}; returns the task id. */
    long schedule(String type, @org.jspecify.annotations.Nullable Object payload, Duration delay);

    /**
     * Schedules {@code payload} for the handler of {@code type} at {@code dueAt}, an instant of the application's
     * clock: the task does not start before that clock shows it. A past time means now.
     */
    long schedule(String type, @org.jspecify.annotations.Nullable Object payload, Instant dueAt);

    /**
     * Schedules one task. When the request has a key and a task with the same type and key exists (in any status),
     * nothing changes and that task's id is returned.
     */
    long schedule(TaskRequest request);

    /** Schedules many tasks in as few database round trips as possible; ids come back in request order. */
    List<Long> scheduleAll(Collection<TaskRequest> requests);

    /** Cancels a task that has not started yet; {@code false} when it is running, finished or unknown. */
    boolean cancel(long id);

    /** Cancels the task of this type and key if it has not started yet. */
    boolean cancel(String type, String key);

    /** Moves a task that has not started yet to a new due time; {@code false} when it can no longer be moved. */
    boolean reschedule(long id, Instant dueAt);

    /** The task with this id, in whatever status. */
    Optional<TaskView> find(long id);

    /** The task with this type and key, in whatever status. */
    Optional<TaskView> find(String type, String key);
}
