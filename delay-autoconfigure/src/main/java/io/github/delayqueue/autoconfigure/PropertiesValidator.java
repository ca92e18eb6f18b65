package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.Locale;

import io.github.delayqueue.store.JdbcTaskStore;
import io.github.delayqueue.store.TableNames;
import org.jspecify.annotations.Nullable;

import org.springframework.validation.Errors;

/**
 * The rules of {@code delay.*}, applied by Spring Boot while it binds the properties (both properties classes are
 * {@link org.springframework.validation.Validator}s), so a wrong value fails startup with the property, the value,
 * the rule and where the value came from, whichever of the queue's beans an application replaces. Every rejection's
 * message starts with the property's name, so the exception says it even where no failure analyzer prints it.
 */
final class PropertiesValidator {

    /** The code of every rejection; the messages carry the detail. */
    static final String INVALID = "delay.invalid";

    private final Errors errors;

    private PropertiesValidator(Errors errors) {
        this.errors = errors;
    }

    static void validate(DelayQueueProperties properties, Errors errors) {
        new PropertiesValidator(errors).check(properties);
    }

    static void validate(DelayQueueMetricsProperties metrics, Errors errors) {
        new PropertiesValidator(errors).positive("refreshInterval", metrics.getRefreshInterval());
    }

    private void check(DelayQueueProperties properties) {
        String instanceId = properties.getInstanceId();
        if (instanceId != null && (instanceId.isBlank() || instanceId.length() > InstanceIds.MAX_LENGTH - 9)) {
            reject("instanceId", "must be 1 to " + (InstanceIds.MAX_LENGTH - 9)
                    + " characters (the queue adds a 9-character suffix per process)");
        }
        jdbc(properties.getJdbc());
        if (properties.getMode() == DelayQueueProperties.Mode.HYBRID) {
            hybrid(properties.getHybrid());
            redis(properties.getRedis());
        }
        worker(properties.getWorker());
        retry(properties.getRetry());

        long maxSize = properties.getPayload().getMaxSize().toBytes();
        if (maxSize < 1 || maxSize > JdbcTaskStore.MAX_PAYLOAD_BYTES) {
            reject("payload.maxSize",
                    "must be between 1B and " + JdbcTaskStore.MAX_PAYLOAD_BYTES + "B (the payload column's size)");
        }
        positive("clock.alignInterval", properties.getClock().getAlignInterval());

        DelayQueueProperties.Retention retention = properties.getRetention();
        positiveIfSet("retention.succeeded", retention.getSucceeded());
        positiveIfSet("retention.cancelled", retention.getCancelled());
        positiveIfSet("retention.failed", retention.getFailed());
        positive("retention.interval", retention.getInterval());
        atLeast("retention.batchSize", retention.getBatchSize(), 1);

        positiveIfSet("health.maxOverdue", properties.getHealth().getMaxOverdue());
    }

    private void jdbc(DelayQueueProperties.Jdbc jdbc) {
        if (jdbc.getTableName() == null || !TableNames.isValidTaskTable(jdbc.getTableName())) {
            reject("jdbc.tableName", "must be a table name of letters, digits and underscores, not starting with a "
                    + "digit, at most " + TableNames.MAX_TASK_TABLE_LENGTH + " characters: the queue adds up to "
                    + TableNames.DERIVED_SUFFIX_ROOM + " to it for index names and the default "
                    + "delay.jdbc.schema-history-table, and MySQL and MariaDB allow "
                    + TableNames.MAX_IDENTIFIER_LENGTH);
        }
        String history = jdbc.getSchemaHistoryTable();
        if (history != null && !TableNames.isValidHistoryTable(history)) {
            reject("jdbc.schemaHistoryTable", "must be a table name of letters, digits and underscores, not "
                    + "starting with a digit, at most " + TableNames.MAX_IDENTIFIER_LENGTH + " characters; leave it "
                    + "unset for " + TableNames.defaultHistoryTable("<table-name>"));
        }
        else if (history != null && history.equalsIgnoreCase(jdbc.getTableName())) {
            reject("jdbc.schemaHistoryTable", "must not be the task table itself (delay.jdbc.table-name)");
        }
        positive("jdbc.pollInterval", jdbc.getPollInterval());
    }

    private void hybrid(DelayQueueProperties.Hybrid hybrid) {
        positive("hybrid.threshold", hybrid.getThreshold());
        positive("hybrid.migrationInterval", hybrid.getMigrationInterval());
        if (hybrid.getThreshold() != null && hybrid.getMigrationInterval() != null
                && hybrid.getMigrationInterval().compareTo(hybrid.getThreshold()) >= 0) {
            reject("hybrid.migrationInterval", "must be shorter than delay.hybrid.threshold ("
                    + hybrid.getThreshold() + "), or tasks could fall due before they are moved into Redis");
        }
        atLeast("hybrid.migrationBatchSize", hybrid.getMigrationBatchSize(), 1);
        notNegative("hybrid.sweepGrace", hybrid.getSweepGrace());
        positive("hybrid.sweepInterval", hybrid.getSweepInterval());
    }

    private void redis(DelayQueueProperties.Redis redis) {
        if (redis.getKeyPrefix() == null || redis.getKeyPrefix().isBlank()
                || !redis.getKeyPrefix().matches("[^{}\\s]+")) {
            reject("redis.keyPrefix", "must be non-empty, without spaces or braces (the queue adds its own hash tags)");
        }
        if (redis.getShards() < 1 || redis.getShards() > 1024) {
            reject("redis.shards", "must be between 1 and 1024");
        }
        positive("redis.maxWait", redis.getMaxWait());
    }

    private void worker(DelayQueueProperties.Worker worker) {
        atLeast("worker.threads", worker.getThreads(), 1);
        atLeast("worker.prefetch", worker.getPrefetch(), 0);
        atLeast("worker.batchSize", worker.getBatchSize(), 1);
        notNegative("worker.claimAhead", worker.getClaimAhead());
        if (worker.getClaimAhead() != null && worker.getClaimAhead().compareTo(Duration.ofSeconds(1)) > 0) {
            reject("worker.claimAhead", "must be at most 1s: a claim made earlier holds tasks other instances could run");
        }
        if (worker.getLease() == null || worker.getLease().compareTo(Duration.ofSeconds(1)) < 0) {
            reject("worker.lease", "must be at least 1s");
        }
        positive("worker.recoveryInterval", worker.getRecoveryInterval());
        notNegative("worker.shutdownTimeout", worker.getShutdownTimeout());
    }

    private void retry(DelayQueueProperties.Retry retry) {
        atLeast("retry.maxAttempts", retry.getMaxAttempts(), 1);
        notNegative("retry.backoff", retry.getBackoff());
        if (!(retry.getMultiplier() >= 1.0) || Double.isInfinite(retry.getMultiplier())) {
            reject("retry.multiplier", "must be a number of at least 1");
        }
        if (retry.getMaxBackoff() == null || retry.getBackoff() != null
                && retry.getMaxBackoff().compareTo(retry.getBackoff()) < 0) {
            reject("retry.maxBackoff", "must not be shorter than delay.retry.backoff (" + retry.getBackoff() + ")");
        }
    }

    private void positive(String field, @Nullable Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            reject(field, "must be a positive duration");
        }
    }

    private void positiveIfSet(String field, @Nullable Duration value) {
        if (value != null) {
            positive(field, value);
        }
    }

    private void notNegative(String field, @Nullable Duration value) {
        if (value == null || value.isNegative()) {
            reject(field, "must not be negative");
        }
    }

    private void atLeast(String field, int value, int min) {
        if (value < min) {
            reject(field, "must be at least " + min);
        }
    }

    /** Rejects {@code field} (a path below the class's prefix, e.g. {@code worker.claimAhead}) for the rule. */
    private void reject(String field, String rule) {
        errors.rejectValue(field, INVALID, propertyName(errors.getObjectName(), field) + " " + rule);
    }

    /** {@code delay} and {@code worker.claimAhead} make {@code delay.worker.claim-ahead}. */
    static String propertyName(String prefix, String field) {
        return prefix + "." + field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
