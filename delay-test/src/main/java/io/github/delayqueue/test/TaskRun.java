package io.github.delayqueue.test;

import java.time.Instant;

import io.github.delayqueue.runtime.TaskEvents;
import org.jspecify.annotations.Nullable;

/**
 * One run of a task that a {@link DelayQueueTester} made: which task and attempt, when it ran on the test's clock, how
 * it ended, and what the handler threw. A test asserts on it rather than on logs: a failing handler's exception is
 * here, the very instance, with the task it failed on.
 *
 * @param id the task's id
 * @param type the task's type
 * @param key the task's key, or {@code null}
 * @param attempt the attempt this run was, from 1
 * @param dueAt when the task was due
 * @param ranAt when it ran, on the test's clock
 * @param outcome {@code SUCCESS}; {@code RETRY}: the attempt failed and the task is due again after its back-off;
 *     {@code FAILED}: the task is dead-lettered; {@code PARKED}: its payload did not bind, and it waits for a re-run
 * @param failure why the attempt failed, {@code null} when it succeeded
 * @param error what the handler (or the payload binding) threw; {@code null} when it succeeded, or when no handler
 *     serves the type
 */
public record TaskRun(long id, String type, @Nullable String key, int attempt, Instant dueAt, Instant ranAt,
        TaskEvents.Outcome outcome, TaskEvents.@Nullable Failure failure, @Nullable Throwable error) {

    /**
     * Whether the handler returned normally and the task is {@code SUCCEEDED}.
     *
     * @return {@code true} for a successful run
     */
    public boolean succeeded() {
        return outcome == TaskEvents.Outcome.SUCCESS;
    }

    TaskRun failedWith(TaskEvents.Failure why, @Nullable Throwable thrown) {
        return new TaskRun(id, type, key, attempt, dueAt, ranAt, outcome, why, thrown);
    }

    @Override
    public String toString() {
        return type + (key == null ? "" : "[" + key + "]") + " #" + id + " attempt " + attempt + " at " + ranAt
                + ": " + outcome + (error == null ? failure == null ? "" : " (" + failure + ")" : " (" + error + ")");
    }
}
