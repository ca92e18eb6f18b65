package io.github.delayqueue.engine;

import java.util.List;

import io.github.delayqueue.store.ClaimedTask;

/**
 * What the engine reports as it works, for meters and logs. Every method has an empty default, so a listener
 * implements only what it needs; listeners must be fast and must not throw.
 */
public interface TaskEvents {

    TaskEvents NONE = new TaskEvents() {
    };

    /** How a run ended. */
    enum Outcome {
        SUCCESS, RETRY, FAILED
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
    default void started(ClaimedTask task, long latenessMillis) {
    }

    default void finished(ClaimedTask task, Outcome outcome, long durationNanos) {
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

    /** One listener that forwards to all of {@code listeners}. */
    static TaskEvents composite(List<TaskEvents> listeners) {
        if (listeners.isEmpty()) {
            return NONE;
        }
        if (listeners.size() == 1) {
            return listeners.get(0);
        }
        List<TaskEvents> all = List.copyOf(listeners);
        return new TaskEvents() {
            @Override
            public void scheduled(String type) {
                all.forEach(l -> l.scheduled(type));
            }

            @Override
            public void cancelled(String type) {
                all.forEach(l -> l.cancelled(type));
            }

            @Override
            public void started(ClaimedTask task, long latenessMillis) {
                all.forEach(l -> l.started(task, latenessMillis));
            }

            @Override
            public void finished(ClaimedTask task, Outcome outcome, long durationNanos) {
                all.forEach(l -> l.finished(task, outcome, durationNanos));
            }

            @Override
            public void claimConflicts(int count) {
                all.forEach(l -> l.claimConflicts(count));
            }

            @Override
            public void migrated(int count) {
                all.forEach(l -> l.migrated(count));
            }

            @Override
            public void recovered(RecoveryReason reason, int count) {
                all.forEach(l -> l.recovered(reason, count));
            }

            @Override
            public void indexAvailability(boolean available) {
                all.forEach(l -> l.indexAvailability(available));
            }

            @Override
            public void indexRebuilt(int tasks) {
                all.forEach(l -> l.indexRebuilt(tasks));
            }
        };
    }
}
