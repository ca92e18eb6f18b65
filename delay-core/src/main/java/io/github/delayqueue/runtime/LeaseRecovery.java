package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.ExpiredLease;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes back tasks whose lease ran out because their instance died, stalled or lost the database: they become
 * pending again, still due at their original time so they run at once, unless an attempt of theirs had started and
 * was their last, which sends them to the dead letter (a task that kills its instance must not kill every instance
 * in turn). Tasks that were claimed but never started go back uncounted. A dead letter is logged at ERROR, like every
 * other ({@link FailureLog}).
 */
final class LeaseRecovery implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(LeaseRecovery.class);

    private static final int BATCH = 500;

    /** Dead letters of one batch logged one by one; the rest in one line. */
    private static final int MAX_DEAD_LETTER_LINES = 10;

    private final TaskStore store;

    private final HandlerRegistry registry;

    private final RetryPolicy retryPolicy;

    private final Tiers tiers;

    private final QueueClock clock;

    private final IndexWrites index;

    private final WakeSignal wake;

    private final TaskEvents events;

    LeaseRecovery(TaskStore store, HandlerRegistry registry, RetryPolicy retryPolicy, Tiers tiers, QueueClock clock,
            IndexWrites index, WakeSignal wake, TaskEvents events) {
        this.store = store;
        this.registry = registry;
        this.retryPolicy = retryPolicy;
        this.tiers = tiers;
        this.clock = clock;
        this.index = index;
        this.wake = wake;
        this.events = events;
    }

    @Override
    public void run() {
        List<Completion> recovered;
        do {
            long now = clock.now();
            Map<Long, String> deadLetters = new HashMap<>();
            recovered = store.recoverExpiredLeases(now, BATCH, lease -> decide(lease, now, deadLetters));
            afterRecovery(recovered, deadLetters);
        }
        while (recovered.size() == BATCH);
    }

    /**
     * A claim whose handler never started goes back as it was: the attempt was not made. One that started counts
     * its attempt; if that was the last one the task is dead-lettered, so a task that kills its instance cannot
     * kill every instance in turn.
     */
    private Completion decide(ExpiredLease lease, long now, Map<Long, String> deadLetters) {
        TaskHandler handler = registry.find(lease.type());
        int maxAttempts = retryPolicy.maxAttempts(lease.maxAttempts(), handler == null ? null : handler.settings());
        TaskStatus tier = tiers.statusFor(lease.dueAt(), now);
        if (!lease.started()) {
            return new Completion.Retry(lease.id(), lease.claim(), tier, lease.dueAt(), lease.attempts(),
                    "Claimed by " + lease.owner() + ", whose lease ended before the task started (the instance died "
                            + "or stalled); the attempt was not made, running it again");
        }
        String what = "The lease of " + lease.owner() + " expired during attempt " + lease.attempts() + " of "
                + maxAttempts + " (the instance died or stalled)";
        if (lease.attempts() >= maxAttempts) {
            deadLetters.put(lease.id(), "Task " + lease.id() + " of type '" + lease.type() + "' is dead-lettered "
                    + "(FAILED): " + what + "; no attempts are left");
            return new Completion.Failed(lease.id(), lease.claim(), lease.attempts(), what + "; no attempts are left");
        }
        return new Completion.Retry(lease.id(), lease.claim(), tier, lease.dueAt(), lease.attempts(),
                what + "; running it again");
    }

    private void afterRecovery(List<Completion> recovered, Map<Long, String> deadLetters) {
        if (recovered.isEmpty()) {
            return;
        }
        log.info("Took back {} task(s) whose instance stopped renewing its lease", recovered.size());
        // after the commit, so a line is written only for a dead letter that is stored; a poison task costs an
        // instance per attempt, so these are few, but a dead instance may have held many tasks on their last attempt
        int logged = 0;
        for (Completion completion : recovered) {
            String line = completion instanceof Completion.Failed ? deadLetters.get(completion.id()) : null;
            if (line != null && logged++ < MAX_DEAD_LETTER_LINES) {
                log.error(line);
            }
        }
        if (logged > MAX_DEAD_LETTER_LINES) {
            log.error("{} more task(s) dead-lettered by this recovery were not logged one by one",
                    logged - MAX_DEAD_LETTER_LINES);
        }
        events.recovered(TaskEvents.RecoveryReason.LEASE, recovered.size());
        List<DueTask> queued = new ArrayList<>();
        for (Completion completion : recovered) {
            if (completion instanceof Completion.Retry retry && retry.status() == TaskStatus.QUEUED) {
                queued.add(new DueTask(retry.id(), retry.dueAt()));
            }
        }
        index.add(queued);
        wake.wakeNow();
    }
}
