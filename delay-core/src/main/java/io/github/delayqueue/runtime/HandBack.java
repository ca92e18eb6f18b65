package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;

/**
 * Hands back claims whose handler never started: pending again in their tier, attempts untouched, and indexed again
 * soon after, never on the calling thread ({@link IndexWrites}).
 */
final class HandBack {

    private HandBack() {
    }

    static void release(TaskStore store, Tiers tiers, IndexWrites index, List<ClaimedTask> unstarted, long now) {
        if (unstarted.isEmpty()) {
            return;
        }
        Map<ClaimId, TaskStatus> statuses = new HashMap<>();
        List<DueTask> queued = new ArrayList<>();
        for (ClaimedTask task : unstarted) {
            TaskStatus status = tiers.statusFor(task.dueAt(), now);
            statuses.put(task.claimId(), status);
            if (status == TaskStatus.QUEUED) {
                queued.add(new DueTask(task.id(), task.dueAt()));
            }
        }
        store.release(statuses, now);
        index.add(queued);
    }
}
