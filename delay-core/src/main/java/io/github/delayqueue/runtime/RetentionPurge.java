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
 * the others skip the run. Oldest first, by when the status last changed. Paced ({@link Pacing}): a batch of each
 * status per store call, then a pause as long as the call took, so the purge of a large backlog (millions of rows after
 * an outage, or a retention shortened) takes at most half the database's time from the consumers; it still deletes
 * several times what a busy queue finishes per interval.
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
        long deadline = System.nanoTime() + budgetMillis * 1_000_000;
        long deleted = 0;
        long round;
        long started;
        do {
            started = System.nanoTime();
            round = store.purge(cutoffs, batchSize, 0); // 0: one batch of each status
            deleted += Math.max(round, 0);
            // a round below a full batch left nothing of any status; -1: another instance is purging
        }
        while (round >= batchSize && Pacing.pauseAfter(started) && System.nanoTime() < deadline);
        if (deleted > 0) {
            log.debug("Purged {} finished task(s)", deleted);
        }
    }
}
