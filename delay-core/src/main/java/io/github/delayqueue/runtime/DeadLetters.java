package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskInspector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;

/**
 * Gives a dead letter ({@code FAILED} task) or a parked task (its payload did not bind) another life, once an operator
 * has fixed what made it fail: it becomes pending again, due now, with a full set of attempts, in the tier a task due
 * now belongs to. As with scheduling, the index and the consumers hear of it only after the row has changed. A type's
 * parked tasks can be re-run at once, page by page ({@link #rerunParked}).
 */
class DeadLetters {

    /** Parked tasks read per page of a bulk re-run. */
    static final int PAGE = 500;

    private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

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
     * Re-runs every {@code PARKED} task of {@code type}, page by page, each as {@link #rerun} does; one whose key a
     * live task holds now stays parked and is logged. The number of tasks re-run.
     */
    long rerunParked(String type) {
        long rerun = 0;
        List<Long> keyHeld = new ArrayList<>();
        long after = 0;
        List<Long> page;
        do {
            page = inspector.parked(type, after, PAGE);
            for (long id : page) {
                try {
                    if (rerun(id)) {
                        rerun++;
                    }
                }
                catch (IllegalStateException ex) {
                    keyHeld.add(id);
                }
                after = id;
            }
        } while (page.size() == PAGE);
        if (!keyHeld.isEmpty()) {
            log.warn("Re-ran {} parked task(s) of type '{}'; {} stay parked because another task of the type now "
                    + "holds their key, pending or running: {}", rerun, type, keyHeld.size(), keyHeld);
        }
        return rerun;
    }

    /**
     * Re-runs task {@code id} if it is {@code FAILED} or {@code PARKED}; {@code false} when it is in any other status
     * or unknown.
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
