package io.github.delayqueue.runtime;

import java.util.List;

import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskInspector;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;

/**
 * Gives a dead letter ({@code FAILED} task) another life, once an operator has fixed what made it fail: it becomes
 * pending again, due now, with a full set of attempts, in the tier a task due now belongs to. As with scheduling, the
 * index and the consumers hear of it only after the row has changed.
 */
class DeadLetters {

    private final TaskInspector inspector;

    private final Indexer indexer;

    private final Tiers tiers;

    private final QueueClock clock;

    private final WakeSignal wake;

    public DeadLetters(TaskInspector inspector, Indexer indexer, Tiers tiers, QueueClock clock,
            WakeSignal wake) {
        this.inspector = inspector;
        this.indexer = indexer;
        this.tiers = tiers;
        this.clock = clock;
        this.wake = wake;
    }

    /**
     * Re-runs task {@code id} if it is {@code FAILED}; {@code false} when it is in any other status or unknown.
     *
     * @throws IllegalStateException when another task of its type and key is pending or running
     */
    public boolean rerun(long id) {
        long now = clock.now();
        TaskStatus status = tiers.statusFor(now, now);
        boolean moved;
        try {
            moved = inspector.rerunFailed(id, status, now, now);
        }
        catch (DuplicateKeyException ex) {
            throw new IllegalStateException("Task " + id + " cannot be re-run: another task of its type now holds its "
                    + "key, pending or running (a key names one live task at a time). Cancel that one or let it "
                    + "finish, then re-run this one. Nothing changed.", ex);
        }
        catch (DataAccessException ex) {
            throw new DelayQueueException("Could not re-run task " + id + ": the task database failed ("
                    + ex.getMostSpecificCause().getMessage() + "). Nothing changed; retry when it is back.", ex);
        }
        if (moved) {
            AfterCommit.run(() -> {
                if (status == TaskStatus.QUEUED) {
                    indexer.add(List.of(new DueTask(id, now)));
                }
                wake.dueAt(now);
            });
        }
        return moved;
    }
}
