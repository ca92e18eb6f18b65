package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.api.TaskStatus;
import org.jspecify.annotations.Nullable;

/**
 * The engine's tuning, resolved from the {@code delay.*} properties by the auto-configuration, in the groups the
 * properties have.
 *
 * @param instanceId the owner written on claimed rows
 * @param worker {@code delay.worker.*}
 * @param jdbc {@code delay.jdbc.*}
 * @param redis {@code delay.redis.*}
 * @param hybrid {@code delay.hybrid.*}
 * @param retention {@code delay.retention.*}
 * @param pausedTypes {@code delay.paused-types}: types this instance does not claim
 */
record EngineSettings(String instanceId, Worker worker, Jdbc jdbc, Redis redis, Hybrid hybrid,
        Retention retention, Set<String> pausedTypes) {

    /** Settings with no type paused by configuration. */
    EngineSettings(String instanceId, Worker worker, Jdbc jdbc, Redis redis, Hybrid hybrid, Retention retention) {
        this(instanceId, worker, jdbc, redis, hybrid, retention, Set.of());
    }

    /**
     * How this instance claims and runs tasks.
     *
     * @param threads worker threads
     * @param prefetch tasks claimed beyond the threads, waiting for one
     * @param batchSize most tasks claimed at once
     * @param claimAhead how early a task may be claimed before it falls due
     * @param lease how long a claim holds without renewal
     * @param shutdownTimeout how long stopping waits for running handlers
     * @param recoveryInterval how often expired leases are looked for
     * @param handlerTimeout how long an attempt of a handler without a timeout of its own may run; {@code null}: as
     *     long as it takes
     */
    public record Worker(int threads, int prefetch, int batchSize, Duration claimAhead, Duration lease,
            Duration shutdownTimeout, Duration recoveryInterval, @Nullable Duration handlerTimeout) {
    }

    /**
     * The database as the place to find due tasks.
     *
     * @param pollInterval how often an idle database poller looks (and the fallback while the index is down)
     */
    public record Jdbc(Duration pollInterval) {
    }

    /**
     * The time index as the place to find due tasks.
     *
     * @param maxWait longest sleep of the index consumer without a wake-up
     */
    public record Redis(Duration maxWait) {
    }

    /**
     * The two tiers of {@code hybrid} mode.
     *
     * @param sweepGrace how overdue a pending task must be before it is claimed from the database
     * @param sweepInterval how often the sweep runs
     * @param migrationInterval how often due-soon tasks move into the index
     * @param migrationBatchSize rows per migration transaction
     */
    public record Hybrid(Duration sweepGrace, Duration sweepInterval, Duration migrationInterval,
            int migrationBatchSize) {
    }

    /**
     * The purge of finished tasks.
     *
     * @param byStatus how long finished tasks are kept, by status; absent statuses are kept forever
     * @param interval how often the purge runs, and how long one run may go on deleting
     * @param batchSize rows per purge statement
     */
    public record Retention(Map<TaskStatus, Duration> byStatus, Duration interval, int batchSize) {
    }
}
