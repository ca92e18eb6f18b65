package io.github.delayqueue.runtime;

import java.util.List;
import java.util.function.Consumer;

import io.github.delayqueue.api.TaskContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link TaskEvents#composite}: forwards each event to every listener, isolating them from one another. */
final class CompositeTaskEvents implements TaskEvents {

    private static final Logger log = LoggerFactory.getLogger(TaskEvents.class);

    private final List<TaskEvents> listeners;

    CompositeTaskEvents(List<TaskEvents> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    private void each(String event, Consumer<TaskEvents> call) {
        for (TaskEvents listener : listeners) {
            try {
                call.accept(listener);
            }
            catch (RuntimeException ex) {
                log.warn("TaskEvents listener {} failed on {}; the task goes on", listener, event, ex);
            }
        }
    }

    @Override
    public void scheduled(String type) {
        each("scheduled", l -> l.scheduled(type));
    }

    @Override
    public void cancelled(String type) {
        each("cancelled", l -> l.cancelled(type));
    }

    @Override
    public void started(TaskContext task, long latenessMillis) {
        each("started", l -> l.started(task, latenessMillis));
    }

    @Override
    public void finished(TaskContext task, Outcome outcome, long durationNanos) {
        each("finished", l -> l.finished(task, outcome, durationNanos));
    }

    @Override
    public void attemptFailed(TaskContext task, Failure failure, @Nullable Throwable error) {
        each("attemptFailed", l -> l.attemptFailed(task, failure, error));
    }

    @Override
    public void timeoutIgnored(TaskContext task, String thread) {
        each("timeoutIgnored", l -> l.timeoutIgnored(task, thread));
    }

    @Override
    public void claimConflicts(int count) {
        each("claimConflicts", l -> l.claimConflicts(count));
    }

    @Override
    public void migrated(int count) {
        each("migrated", l -> l.migrated(count));
    }

    @Override
    public void recovered(RecoveryReason reason, int count) {
        each("recovered", l -> l.recovered(reason, count));
    }

    @Override
    public void indexAvailability(boolean available) {
        each("indexAvailability", l -> l.indexAvailability(available));
    }

    @Override
    public void indexRebuilt(int tasks) {
        each("indexRebuilt", l -> l.indexRebuilt(tasks));
    }

    @Override
    public void workFailed(String work) {
        each("workFailed", l -> l.workFailed(work));
    }
}
