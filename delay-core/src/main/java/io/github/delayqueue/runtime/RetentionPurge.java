package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes finished tasks once their status is older than its retention, a bounded batch per statement so a large
 * backlog never holds long locks, for up to one interval per run, on one instance at a time (the store takes a lock):
 * the others skip the run. Oldest first, by when the status last changed.
 */
final class RetentionPurge implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(RetentionPurge.class);


    private final TaskStore store;

    private final Map<TaskStatus, Duration> retention;

    private final int batchSize;

    private final QueueClock clock;

    private final long budgetMillis;

    /** One run goes on deleting for up to the purge's interval; a backlog is purged run after run. */
    RetentionPurge(TaskStore store, EngineSettings.Retention retention, QueueClock clock) {
        this.store = store;
        this.retention = Map.copyOf(retention.byStatus());
        this.batchSize = retention.batchSize();
        this.clock = clock;
        this.budgetMillis = retention.interval().toMillis();
    }

    @Override
    public void run() {
        long now = clock.now();
        Map<TaskStatus, Long> cutoffs = new EnumMap<>(TaskStatus.class);
        retention.forEach((status, keep) -> cutoffs.put(status, now - keep.toMillis()));
        long deleted = store.purge(cutoffs, batchSize, budgetMillis);
        if (deleted > 0) {
            log.debug("Purged {} finished task(s)", deleted);
        }
    }
}
