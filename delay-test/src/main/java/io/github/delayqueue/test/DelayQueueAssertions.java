package io.github.delayqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.runtime.TaskEvents;
import org.assertj.core.api.AbstractAssert;
import org.jspecify.annotations.Nullable;

/**
 * AssertJ assertions on what a {@link DelayQueueTester} saw: the tasks waiting and the runs it made. A failed run's
 * assertion error carries the handler's exception as its cause, so the stack trace of a failing handler is in the
 * test report.
 *
 * <pre>{@code
 * assertThat(tester.pending()).hasTask("order.cancel", "42").dueIn(Duration.ofMinutes(30));
 * assertThat(tester.advance(Duration.ofMinutes(30))).ranOnce("order.cancel", "42").succeeded();
 * }</pre>
 */
public final class DelayQueueAssertions {

    private DelayQueueAssertions() {
    }

    /**
     * Assertions on the tasks waiting.
     *
     * @param actual {@link DelayQueueTester#pending()}
     * @return the assertion
     */
    public static PendingTasksAssert assertThat(PendingTasks actual) {
        return new PendingTasksAssert(actual);
    }

    /**
     * Assertions on the runs of a call.
     *
     * @param actual what {@link DelayQueueTester#advance(Duration)} and its siblings answered
     * @return the assertion
     */
    public static TaskRunsAssert assertThat(TaskRuns actual) {
        return new TaskRunsAssert(actual);
    }

    /** On {@link PendingTasks}: which tasks wait. */
    public static final class PendingTasksAssert extends AbstractAssert<PendingTasksAssert, PendingTasks> {

        PendingTasksAssert(PendingTasks actual) {
            super(actual, PendingTasksAssert.class);
        }

        /**
         * A task of this type and key waits; what follows asserts on it.
         *
         * @param type the task type
         * @param key the key, or {@code null} for an unkeyed task (the earliest)
         * @return assertions on that task
         */
        public PendingTaskAssert hasTask(String type, @Nullable String key) {
            isNotNull();
            TaskView task = actual.find(type, key).orElse(null);
            if (task == null) {
                failWithMessage("Expected a pending task %s but there was none; %s", name(type, key), actual);
            }
            return new PendingTaskAssert(Objects.requireNonNull(task), actual.now());
        }

        /**
         * No task of this type and key waits.
         *
         * @param type the task type
         * @param key the key
         * @return this
         */
        public PendingTasksAssert hasNoTask(String type, @Nullable String key) {
            isNotNull();
            actual.find(type, key).ifPresent(task -> failWithMessage("Expected no pending task %s but found #%s %s "
                    + "due %s; %s", name(type, key), task.id(), task.status(), task.dueAt(), actual));
            return this;
        }

        /**
         * Nothing waits.
         *
         * @return this
         */
        public PendingTasksAssert isEmpty() {
            isNotNull();
            if (!actual.isEmpty()) {
                failWithMessage("Expected no pending tasks; %s", actual);
            }
            return this;
        }

        /**
         * This many tasks wait.
         *
         * @param expected the number
         * @return this
         */
        public PendingTasksAssert hasSize(int expected) {
            isNotNull();
            if (actual.size() != expected) {
                failWithMessage("Expected %s pending task(s) but there were %s; %s", expected, actual.size(),
                        actual);
            }
            return this;
        }
    }

    /** On one waiting task. */
    public static final class PendingTaskAssert extends AbstractAssert<PendingTaskAssert, TaskView> {

        private final Instant now;

        PendingTaskAssert(TaskView actual, Instant now) {
            super(actual, PendingTaskAssert.class);
            this.now = now;
        }

        /**
         * It is due exactly this long after the time the tasks were read (the test's clock stands still, so a task
         * scheduled with a delay is due exactly that delay later).
         *
         * @param delay the expected delay
         * @return this
         */
        public PendingTaskAssert dueIn(Duration delay) {
            return dueAt(now.plus(delay));
        }

        /**
         * It is due at this instant, to the millisecond.
         *
         * @param expected the due time
         * @return this
         */
        public PendingTaskAssert dueAt(Instant expected) {
            if (!actual.dueAt().equals(expected)) {
                failWithMessage("Expected task %s to be due at %s (in %s) but it is due at %s (in %s)",
                        describe(actual), expected, Duration.between(now, expected), actual.dueAt(),
                        Duration.between(now, actual.dueAt()));
            }
            return this;
        }

        /**
         * It is in this status ({@code SCHEDULED}, {@code QUEUED} or {@code WAITING}).
         *
         * @param expected the status
         * @return this
         */
        public PendingTaskAssert hasStatus(TaskStatus expected) {
            if (actual.status() != expected) {
                failWithMessage("Expected task %s to be %s but it is %s", describe(actual), expected,
                        actual.status());
            }
            return this;
        }

        /**
         * This many attempts of it started (and failed) so far.
         *
         * @param expected the number of attempts
         * @return this
         */
        public PendingTaskAssert hasAttempts(int expected) {
            if (actual.attempts() != expected) {
                failWithMessage("Expected task %s to have had %s attempt(s) but it had %s (last error: %s)",
                        describe(actual), expected, actual.attempts(), actual.lastError());
            }
            return this;
        }

        private static String describe(TaskView task) {
            return name(task.type(), task.key()) + " #" + task.id();
        }
    }

    /** On {@link TaskRuns}: what ran, and how it ended. */
    public static final class TaskRunsAssert extends AbstractAssert<TaskRunsAssert, TaskRuns> {

        TaskRunsAssert(TaskRuns actual) {
            super(actual, TaskRunsAssert.class);
        }

        /**
         * The task of this type and key ran exactly once; what follows asserts on that run.
         *
         * @param type the task type
         * @param key the key, or {@code null} for unkeyed tasks
         * @return assertions on the run
         */
        public TaskRunAssert ranOnce(String type, @Nullable String key) {
            isNotNull();
            List<TaskRun> runs = actual.of(type, key);
            if (runs.size() != 1) {
                failWithMessage("Expected %s to run once but it ran %s time(s); runs: %s", name(type, key),
                        runs.size(), actual);
            }
            return new TaskRunAssert(runs.get(0));
        }

        /**
         * The task of this type and key ran; what follows asserts on its last run.
         *
         * @param type the task type
         * @param key the key, or {@code null} for unkeyed tasks
         * @return assertions on the last run
         */
        public TaskRunAssert hasRun(String type, @Nullable String key) {
            isNotNull();
            List<TaskRun> runs = actual.of(type, key);
            if (runs.isEmpty()) {
                failWithMessage("Expected %s to run but it did not; runs: %s", name(type, key), actual);
            }
            return new TaskRunAssert(runs.get(runs.size() - 1));
        }

        /**
         * The task of this type and key did not run.
         *
         * @param type the task type
         * @param key the key, or {@code null} for unkeyed tasks
         * @return this
         */
        public TaskRunsAssert didNotRun(String type, @Nullable String key) {
            isNotNull();
            if (!actual.of(type, key).isEmpty()) {
                failWithMessage("Expected %s not to run but it did: %s", name(type, key), actual.of(type, key));
            }
            return this;
        }

        /**
         * Every run succeeded; otherwise the error names each failed run and carries the first one's exception as
         * its cause.
         *
         * @return this
         */
        public TaskRunsAssert allSucceeded() {
            isNotNull();
            List<TaskRun> failures = actual.failures();
            if (!failures.isEmpty()) {
                throw failureCausedBy("Expected every run to succeed but " + failures.size() + " did not: " + failures,
                        failures.get(0).error());
            }
            return this;
        }

        /**
         * Nothing ran.
         *
         * @return this
         */
        public TaskRunsAssert isEmpty() {
            isNotNull();
            if (!actual.isEmpty()) {
                failWithMessage("Expected no runs but there were: %s", actual);
            }
            return this;
        }

        /**
         * This many runs were made (every attempt counts).
         *
         * @param expected the number
         * @return this
         */
        public TaskRunsAssert hasSize(int expected) {
            isNotNull();
            if (actual.size() != expected) {
                failWithMessage("Expected %s run(s) but there were %s: %s", expected, actual.size(), actual);
            }
            return this;
        }
    }

    /** On one run. */
    public static final class TaskRunAssert extends AbstractAssert<TaskRunAssert, TaskRun> {

        TaskRunAssert(TaskRun actual) {
            super(actual, TaskRunAssert.class);
        }

        /**
         * The handler returned normally and the task succeeded; otherwise the error carries what it threw.
         *
         * @return this
         */
        public TaskRunAssert succeeded() {
            if (!actual.succeeded()) {
                throw failureCausedBy("Expected " + actual + " to succeed", actual.error());
            }
            return this;
        }

        /**
         * The attempt failed with an exception of this type (or a subtype).
         *
         * @param type the exception's type
         * @return this
         */
        public TaskRunAssert failedWith(Class<? extends Throwable> type) {
            if (actual.succeeded()) {
                failWithMessage("Expected %s to fail with %s but it succeeded", actual, type.getName());
            }
            if (!type.isInstance(actual.error())) {
                throw failureCausedBy("Expected " + actual + " to fail with " + type.getName(), actual.error());
            }
            return this;
        }

        /**
         * The attempt failed and the task is due again after its back-off.
         *
         * @return this
         */
        public TaskRunAssert isRetried() {
            return hasOutcome(TaskEvents.Outcome.RETRY);
        }

        /**
         * The attempt failed and the task is dead-lettered ({@code FAILED}).
         *
         * @return this
         */
        public TaskRunAssert isDeadLettered() {
            return hasOutcome(TaskEvents.Outcome.FAILED);
        }

        /**
         * The payload did not bind to the handler's parameter type, and the task is parked ({@code PARKED}): what a
         * test of an old payload without an upcaster expects.
         *
         * @return this
         */
        public TaskRunAssert isParked() {
            return hasOutcome(TaskEvents.Outcome.PARKED);
        }

        /**
         * The run was this attempt (from 1).
         *
         * @param expected the attempt
         * @return this
         */
        public TaskRunAssert hasAttempt(int expected) {
            if (actual.attempt() != expected) {
                failWithMessage("Expected %s to be attempt %s", actual, expected);
            }
            return this;
        }

        private TaskRunAssert hasOutcome(TaskEvents.Outcome expected) {
            if (actual.outcome() != expected) {
                throw failureCausedBy("Expected " + actual + " to end " + expected, actual.error());
            }
            return this;
        }
    }

    private static AssertionError failureCausedBy(String message, @Nullable Throwable cause) {
        return new AssertionError(message, cause);
    }

    private static String name(String type, @Nullable String key) {
        return type + (key == null ? "" : "[" + key + "]");
    }
}
