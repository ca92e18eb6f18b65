package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.store.JdbcTaskStore;
import io.github.delayqueue.store.TableNames;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Checks {@code delay.*} at startup, so a wrong value fails fast with the property, the value and the rule named,
 * instead of misbehaving later.
 */
final class PropertiesValidator {

    private PropertiesValidator() {
    }

    static void validate(DelayQueueProperties properties) {
        if (properties.getInstanceId() != null && (properties.getInstanceId().isBlank()
                || properties.getInstanceId().length() > InstanceIds.MAX_LENGTH - 9)) {
            throw invalid("delay.instance-id", properties.getInstanceId(), "must be 1 to "
                    + (InstanceIds.MAX_LENGTH - 9) + " characters (the queue adds a 9-character suffix per process)");
        }
        DelayQueueProperties.Jdbc jdbc = properties.getJdbc();
        if (jdbc.getTableName() == null || !TableNames.isValidTaskTable(jdbc.getTableName())) {
            throw invalid("delay.jdbc.table-name", jdbc.getTableName(), "must be a table name of letters, digits and "
                    + "underscores, not starting with a digit, at most " + TableNames.MAX_TASK_TABLE_LENGTH
                    + " characters: the queue adds up to " + TableNames.DERIVED_SUFFIX_ROOM + " to it for index names "
                    + "and the default delay.jdbc.schema-history-table, and MySQL and MariaDB allow "
                    + TableNames.MAX_IDENTIFIER_LENGTH);
        }
        String history = jdbc.getSchemaHistoryTable();
        if (history != null && !TableNames.isValidHistoryTable(history)) {
            throw invalid("delay.jdbc.schema-history-table", history, "must be a table name of letters, digits and "
                    + "underscores, not starting with a digit, at most " + TableNames.MAX_IDENTIFIER_LENGTH
                    + " characters; leave it unset for " + TableNames.defaultHistoryTable("<table-name>"));
        }
        if (history != null && history.equalsIgnoreCase(jdbc.getTableName())) {
            throw invalid("delay.jdbc.schema-history-table", history,
                    "must not be the task table itself (delay.jdbc.table-name)");
        }
        positive("delay.jdbc.poll-interval", jdbc.getPollInterval());

        if (properties.getMode() == DelayQueueProperties.Mode.HYBRID) {
            DelayQueueProperties.Hybrid hybrid = properties.getHybrid();
            positive("delay.hybrid.threshold", hybrid.getThreshold());
            positive("delay.hybrid.migration-interval", hybrid.getMigrationInterval());
            if (hybrid.getMigrationInterval().compareTo(hybrid.getThreshold()) >= 0) {
                throw invalid("delay.hybrid.migration-interval", hybrid.getMigrationInterval(),
                        "must be shorter than delay.hybrid.threshold (" + hybrid.getThreshold()
                                + "), or tasks could fall due before they are moved into Redis");
            }
            atLeast("delay.hybrid.migration-batch-size", hybrid.getMigrationBatchSize(), 1);
            notNegative("delay.hybrid.sweep-grace", hybrid.getSweepGrace());
            positive("delay.hybrid.sweep-interval", hybrid.getSweepInterval());
            DelayQueueProperties.Redis redis = properties.getRedis();
            if (redis.getKeyPrefix() == null || redis.getKeyPrefix().isBlank()
                    || !redis.getKeyPrefix().matches("[^{}\\s]+")) {
                throw invalid("delay.redis.key-prefix", redis.getKeyPrefix(),
                        "must be non-empty, without spaces or braces (the queue adds its own hash tags)");
            }
            if (redis.getShards() < 1 || redis.getShards() > 1024) {
                throw invalid("delay.redis.shards", redis.getShards(), "must be between 1 and 1024");
            }
            positive("delay.redis.max-wait", redis.getMaxWait());
        }

        DelayQueueProperties.Worker worker = properties.getWorker();
        atLeast("delay.worker.threads", worker.getThreads(), 1);
        atLeast("delay.worker.prefetch", worker.getPrefetch(), 0);
        atLeast("delay.worker.batch-size", worker.getBatchSize(), 1);
        notNegative("delay.worker.claim-ahead", worker.getClaimAhead());
        if (worker.getClaimAhead().compareTo(Duration.ofSeconds(1)) > 0) {
            throw invalid("delay.worker.claim-ahead", worker.getClaimAhead(),
                    "must be at most 1s: a claim made earlier holds tasks other instances could run");
        }
        if (worker.getLease().compareTo(Duration.ofSeconds(1)) < 0) {
            throw invalid("delay.worker.lease", worker.getLease(), "must be at least 1s");
        }
        positive("delay.worker.recovery-interval", worker.getRecoveryInterval());
        notNegative("delay.worker.shutdown-timeout", worker.getShutdownTimeout());

        DelayQueueProperties.Retry retry = properties.getRetry();
        atLeast("delay.retry.max-attempts", retry.getMaxAttempts(), 1);
        notNegative("delay.retry.backoff", retry.getBackoff());
        if (!(retry.getMultiplier() >= 1.0) || Double.isInfinite(retry.getMultiplier())) {
            throw invalid("delay.retry.multiplier", retry.getMultiplier(), "must be a number of at least 1");
        }
        if (retry.getMaxBackoff().compareTo(retry.getBackoff()) < 0) {
            throw invalid("delay.retry.max-backoff", retry.getMaxBackoff(),
                    "must not be shorter than delay.retry.backoff (" + retry.getBackoff() + ")");
        }

        long maxSize = properties.getPayload().getMaxSize().toBytes();
        if (maxSize < 1 || maxSize > JdbcTaskStore.MAX_PAYLOAD_BYTES) {
            throw invalid("delay.payload.max-size", properties.getPayload().getMaxSize(),
                    "must be between 1B and " + JdbcTaskStore.MAX_PAYLOAD_BYTES + "B (the payload column's size)");
        }

        positive("delay.clock.align-interval", properties.getClock().getAlignInterval());

        DelayQueueProperties.Retention retention = properties.getRetention();
        positiveIfSet("delay.retention.succeeded", retention.getSucceeded());
        positiveIfSet("delay.retention.cancelled", retention.getCancelled());
        positiveIfSet("delay.retention.failed", retention.getFailed());
        positive("delay.retention.interval", retention.getInterval());
        atLeast("delay.retention.batch-size", retention.getBatchSize(), 1);

        positiveIfSet("delay.health.max-overdue", properties.getHealth().getMaxOverdue());
    }

    static void validate(DelayQueueMetricsProperties metrics) {
        positive("delay.metrics.refresh-interval", metrics.getRefreshInterval());
    }

    private static void positive(String name, @Nullable Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(name, value, "must be a positive duration");
        }
    }

    private static void positiveIfSet(String name, @Nullable Duration value) {
        if (value != null) {
            positive(name, value);
        }
    }

    private static void notNegative(String name, @Nullable Duration value) {
        if (value == null || value.isNegative()) {
            throw invalid(name, value, "must not be negative");
        }
    }

    private static void atLeast(String name, int value, int min) {
        if (value < min) {
            throw invalid(name, value, "must be at least " + min);
        }
    }

    private static InvalidConfigurationPropertyValueException invalid(String name, @Nullable Object value,
            String reason) {
        return new InvalidConfigurationPropertyValueException(name, value, reason);
    }
}
