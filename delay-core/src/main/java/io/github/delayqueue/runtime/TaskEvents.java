package io.github.delayqueue.runtime;

import java.util.List;

import io.github.delayqueue.api.TaskContext;
import org.jspecify.annotations.Nullable;

/**
 * What the engine reports as it works, for meters and logs. Every method has an empty default, so a listener
 * implements only what it needs; listeners must be fast and must not throw. A task is described as its handler sees
 * it ({@link TaskContext}): never with its payload. What every listener must do is
 * {@code io.github.delayqueue.test.TaskEventsContract} in delay-test, a test to extend.
 */
public interface TaskEvents {

    TaskEvents NONE = new TaskEvents() {
    };

    /** How a run ended; {@code PARKED}: its payload did not bind, and it waits for an operator's re-run. */
    enum Outcome {
        SUCCESS, RETRY, FAILED, PARKED
    }

    /** Why an attempt failed. */
    enum Failure {
        /** The handler threw. */
        HANDLER,
        /**
         * The payload did not bind to the handler's parameter type (the codec threw): the task is parked for a
         * {@code PayloadBindingException}, dead-lettered for anything else a codec throws.
         */
        BINDING,
        /** No handler on this instance serves the task's type; the task is dead-lettered. */
        NO_HANDLER,
        /** The handler was interrupted because this instance could not renew the lease; the attempt is not counted. */
        LEASE_LOST,
        /** The handler ran over its timeout and was interrupted; the attempt counts, as if the handler had thrown. */
        TIMEOUT,
        /** Something around the handler failed (a listener, an {@link Error} in the codec); retried like a failure. */
        INTERNAL
    }

    /** Why a task was taken back from where it was stuck. */
    enum RecoveryReason {
        /** Its instance stopped renewing the lease. */
        LEASE,
        /** It stayed pending past the sweep grace, missing from the index. */
        SWEEP
    }

    default void scheduled(String type) {
    }

    default void cancelled(String type) {
    }

    /** A claimed task starts on a worker, {@code latenessMillis} after it fell due. */
    default void started(TaskContext task, long latenessMillis) {
    }

    /**
     * A run ended after {@code durationNanos} in its handler; 0 when no handler ran (the type has none, or the
     * payload did not bind), which ends the task as {@link Outcome#FAILED}.
     */
    default void finished(TaskContext task, Outcome outcome, long durationNanos) {
    }

    /**
     * An attempt failed, right after {@link #finished} with {@link Outcome#RETRY} or {@link Outcome#FAILED} (or, for
     * {@link Failure#INTERNAL}, without it): why, and what was thrown, {@code null} when no handler serves the type.
     */
    default void attemptFailed(TaskContext task, Failure failure, @Nullable Throwable error) {
    }

    /**
     * A handler ran over its timeout and had not returned a while after its interrupt: its attempt was written as
     * failed without it ({@link Failure#TIMEOUT}), and its thread runs no other task until the handler returns. Once
     * per such attempt; {@code thread} is the name of the thread that still runs it.
     */
    default void timeoutIgnored(TaskContext task, String thread) {
    }

    /** Ids taken from the index whose rows another instance (or a cancel) had already changed. */
    default void claimConflicts(int count) {
    }

    default void migrated(int count) {
    }

    default void recovered(RecoveryReason reason, int count) {
    }

    /** The time index was found unreachable ({@code false}) or reachable again ({@code true}). */
    default void indexAvailability(boolean available) {
    }

    /**
     * This instance rebuilt the whole time index from the database ({@code tasks} queued tasks) after Redis came
     * back; one instance does this for all that saw Redis back at about the same time.
     */
    default void indexRebuilt(int tasks) {
    }

    /**
     * A run of one of the engine's loops or periodic jobs failed ({@code work} names it, e.g. {@code "lease renewal"});
     * it is tried again after a short back-off. Logged once per streak; counted here for every failure.
     */
    default void workFailed(String work) {
    }

    /**
     * One listener that forwards to all of {@code listeners}. A listener that throws is logged and skipped: a bug in
     * a meter must not leave a task stuck or a worker thread dead.
     */
    static TaskEvents composite(List<TaskEvents> listeners) {
        return listeners.isEmpty() ? NONE : new CompositeTaskEvents(listeners);
    }
}
