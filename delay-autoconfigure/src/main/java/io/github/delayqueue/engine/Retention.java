package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes finished tasks once they are older than their status's retention, a bounded batch at a time so a large
 * backlog never holds long locks.
 */
final class Retention implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Retention.class);

    /** Batches per status per run, so one run stays short; the next run goes on. */
    private static final int MAX_BATCHES_PER_RUN = 20;

    private final TaskStore store;

    private final Map<TaskStatus, Duration> retention;

    private final int batchSize;

    private final QueueClock clock;

    private final Throttle throttle = new Throttle(log, "Purging finished tasks");

    Retention(TaskStore store, Map<TaskStatus, Duration> retention, int batchSize, QueueClock clock) {
        this.store = store;
        this.retention = Map.copyOf(retention);
        this.batchSize = batchSize;
        this.clock = clock;
    }

    @Override
    public void run() {
        try {
            for (Map.Entry<TaskStatus, Duration> entry : retention.entrySet()) {
                long before = clock.now() - entry.getValue().toMillis();
                for (int i = 0; i < MAX_BATCHES_PER_RUN; i++) {
                    if (store.purge(entry.getKey(), before, batchSize) < batchSize) {
                        break;
                    }
                }
            }
            throttle.succeeded();
        }
        catch (RuntimeException ex) {
            throttle.failed(ex);
        }
    }
}
