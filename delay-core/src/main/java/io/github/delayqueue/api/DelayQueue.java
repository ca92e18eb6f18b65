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
 *
 * @since 0.1.0
 */
public interface DelayQueue {

    /**
     * Schedules {@code payload} for the handler of {@code type} after {@code delay}.
     *
     * @param type the task type, which names its {@link DelayedHandler}
     * @param payload what the handler receives, stored as JSON; {@code null} is stored as JSON null
     * @param delay how long from now the task is due; zero or negative means now
     * @return the new task's id
     * @throws IllegalArgumentException when the type is blank or too long, the payload too large, or the due time
     *     later than the latest accepted
     * @throws DelayQueueException when the database cannot store the task: it was not stored, unless the exception
     *     is an {@link OutcomeUnknownException}
     */
    long schedule(String type, @org.jspecify.annotations.Nullable Object payload, Duration delay);

    /**
     * Schedules {@code payload} for the handler of {@code type} at {@code dueAt}, an instant of the application's
     * clock: the task does not start before that clock shows it. A past time means now.
     *
     * @param type the task type, which names its {@link DelayedHandler}
     * @param payload what the handler receives, stored as JSON; {@code null} is stored as JSON null
     * @param dueAt when the task is due, on the application's clock
     * @return the new task's id
     * @throws IllegalArgumentException when the type is blank or too long, the payload too large, or the due time
     *     later than the latest accepted
     * @throws DelayQueueException when the database cannot store the task: it was not stored, unless the exception
     *     is an {@link OutcomeUnknownException}
     */
    long schedule(String type, @org.jspecify.annotations.Nullable Object payload, Instant dueAt);

    /**
     * Schedules one task. When the request has a key and a live (pending or running) task has the same type and key,
     * that task's id is returned, and the request's {@link TaskRequest#keyMode() key mode} says whether a pending one
     * changes; a finished task never holds its key. {@link #submit} answers which case happened.
     *
     * @param request the task to schedule, built with {@link TaskRequest#of}
     * @return the new task's id, or that of the live task with the same type and key
     * @throws IllegalArgumentException when the request's type, key, attempts, payload or due time is not allowed
     * @throws DelayQueueException when the database cannot store the task: it was not stored, unless the exception
     *     is an {@link OutcomeUnknownException}
     */
    long schedule(TaskRequest request);

    /**
     * Schedules one task, as {@link #schedule(TaskRequest)} does, and says what happened: a new task, or the key's
     * live task kept, replaced or pushed out. For callers that debounce or replace by key and need to tell the cases
     * apart.
     *
     * @param request the task to schedule, built with {@link TaskRequest#of}
     * @return the task's id and what happened to it
     * @throws IllegalArgumentException when the request's type, key, attempts, payload or due time is not allowed
     * @throws DelayQueueException when the database cannot store the task: it was not stored, unless the exception
     *     is an {@link OutcomeUnknownException}
     */
    Scheduled submit(TaskRequest request);

    /**
     * Schedules many tasks, as {@link #scheduleAll} does, and says what happened to each.
     *
     * @param requests the tasks to schedule
     * @return for each request, in order, its task's id and what happened
     * @throws IllegalArgumentException when one of the requests is not allowed; none is stored
     * @throws DelayQueueException when the database cannot store the tasks: none was stored or changed, unless the
     *     exception is an {@link OutcomeUnknownException}
     */
    List<Scheduled> submitAll(Collection<TaskRequest> requests);

    /**
     * Schedules many tasks in as few database round trips as possible.
     *
     * @param requests the tasks to schedule; a key a live task holds returns that task's id, as
     *     {@link #schedule(TaskRequest)} does
     * @return the tasks' ids, in request order
     * @throws IllegalArgumentException when one of the requests is not allowed; none is stored
     * @throws DelayQueueException when the database cannot store the tasks: none was stored, unless the exception
     *     is an {@link OutcomeUnknownException}
     */
    List<Long> scheduleAll(Collection<TaskRequest> requests);

    /**
     * Cancels a task that has not started yet.
     *
     * @param id the task's id
     * @return {@code true} when this call cancelled it; {@code false} when it is running, finished or unknown
     * @throws DelayQueueException when the database cannot be reached
     */
    boolean cancel(long id);

    /**
     * Cancels the task of this type and key if it has not started yet.
     *
     * @param type the task type
     * @param key the business key the task was scheduled with
     * @return {@code true} when this call cancelled it; {@code false} when it is running, finished or unknown
     * @throws IllegalArgumentException when the type or the key is one no task can have
     * @throws DelayQueueException when the database cannot be reached
     */
    boolean cancel(String type, String key);

    /**
     * Cancels every task of a type that has not started (pending, or a follow-up waiting) whose key starts with
     * {@code keyPrefix}: "the user deleted their account, drop their reminders". It works in batches of at most 500
     * tasks, each committed by itself, so it never holds many row locks and never keeps the consumers waiting, and
     * pauses between two batches as long as the last one took (at most a second), so it leaves the database at least
     * half of its time for the consumers running beside it; it is never part of the caller's transaction. A task
     * claimed while it works runs.
     *
     * @param type the task type
     * @param keyPrefix the start of the keys; {@code ""} for every keyed task, {@code null} for every task of the
     *     type, with or without a key
     * @return how many tasks this call cancelled
     * @throws IllegalArgumentException when the type or the prefix is one no task can have
     * @throws DelayQueueException when the database cannot be reached; the batches before it stay cancelled
     */
    long cancelAll(String type, @org.jspecify.annotations.Nullable String keyPrefix);

    /**
     * Moves every pending task of a type whose key starts with {@code keyPrefix} to one due time, in batches as
     * {@link #cancelAll} does: "the campaign moved to Monday 9:00".
     *
     * @param type the task type
     * @param keyPrefix as for {@link #cancelAll}
     * @param dueAt the new due time, on the application's clock; a past time means now
     * @return how many tasks this call moved
     * @throws IllegalArgumentException when the type, the prefix or the due time is not allowed
     * @throws DelayQueueException when the database cannot be reached; the batches before it stay moved
     */
    long rescheduleAll(String type, @org.jspecify.annotations.Nullable String keyPrefix, Instant dueAt);

    /**
     * Shifts the due time of every pending task of a type whose key starts with {@code keyPrefix} by
     * {@code shift}, in batches as {@link #cancelAll} does: "the service is down for an hour, push its retries out".
     *
     * @param type the task type
     * @param keyPrefix as for {@link #cancelAll}
     * @param shift how far to move each due time: later when positive, earlier when negative
     * @return how many tasks this call moved
     * @throws IllegalArgumentException when the type, the prefix or the shift is not allowed
     * @throws DelayQueueException when the database cannot be reached; the batches before it stay moved
     */
    long shiftAll(String type, @org.jspecify.annotations.Nullable String keyPrefix, Duration shift);

    /**
     * A page of the tasks of a type that have not started (pending, or follow-ups waiting) whose key starts with
     * {@code keyPrefix}: those without a key first (when {@code keyPrefix} is {@code null}), then by key and id. Pass
     * the last task of a page as {@code after} to get the next; a page shorter than {@code limit} is the last.
     *
     * @param type the task type
     * @param keyPrefix as for {@link #cancelAll}
     * @param after the last task of the previous page, or {@code null} for the first page
     * @param limit at most this many tasks, 1 to 1,000
     * @return the page
     * @throws IllegalArgumentException when the type, the prefix or the limit is not allowed
     * @throws DelayQueueException when the database cannot be reached
     */
    List<TaskView> findUnstarted(String type, @org.jspecify.annotations.Nullable String keyPrefix,
            @org.jspecify.annotations.Nullable TaskView after, int limit);

    /**
     * Moves a task that has not started yet to a new due time.
     *
     * @param id the task's id
     * @param dueAt the new due time, on the application's clock; a past time means now
     * @return {@code true} when the task was moved; {@code false} when it can no longer be moved or is unknown
     * @throws IllegalArgumentException when the due time is later than the latest accepted
     * @throws DelayQueueException when the database cannot be reached
     */
    boolean reschedule(long id, Instant dueAt);

    /**
     * The task with this id, in whatever status.
     *
     * @param id the task's id
     * @return the task, or empty when no task has this id (or it was purged)
     * @throws DelayQueueException when the database cannot be reached
     */
    Optional<TaskView> find(long id);

    /**
     * The task with this type and key: its live (pending or running) one, else the latest that finished.
     *
     * @param type the task type
     * @param key the business key the task was scheduled with
     * @return the task, or empty when none has this type and key (or they were purged)
     * @throws IllegalArgumentException when the type or the key is one no task can have
     * @throws DelayQueueException when the database cannot be reached
     */
    Optional<TaskView> find(String type, String key);
}
