package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;

/**
 * The engine's tuning, resolved from {@code delay.*} properties by the auto-configuration.
 *
 * @param instanceId the owner written on claimed rows
 * @param threads worker threads
 * @param prefetch tasks claimed beyond the threads, waiting for one
 * @param batchSize most tasks claimed at once
 * @param claimAhead how early a task may be claimed before it falls due
 * @param lease how long a claim holds without renewal
 * @param shutdownTimeout how long stopping waits for running handlers
 * @param recoveryInterval how often expired leases are looked for
 * @param pollInterval how often an idle database poller looks (and the fallback while the index is down)
 * @param maxWait longest sleep of the index consumer without a wake-up
 * @param sweepGrace how overdue a pending task must be before it is claimed from the database in hybrid mode
 * @param sweepInterval how often the sweep runs
 * @param migrationInterval how often due-soon tasks move into the index
 * @param migrationBatchSize rows per migration transaction
 * @param retention how long finished tasks are kept, by status; absent statuses are kept forever
 * @param retentionInterval how often the purge runs
 * @param retentionBatchSize rows per purge statement
 */
public record EngineSettings(String instanceId, int threads, int prefetch, int batchSize, Duration claimAhead,
        Duration lease,
        Duration shutdownTimeout, Duration recoveryInterval, Duration pollInterval, Duration maxWait,
        Duration sweepGrace, Duration sweepInterval, Duration migrationInterval, int migrationBatchSize,
        Map<TaskStatus, Duration> retention, Duration retentionInterval, int retentionBatchSize) {
}
