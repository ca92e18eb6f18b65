package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;
import io.github.delayqueue.store.TableNames;
import io.github.delayqueue.store.TaskTable;
import org.jspecify.annotations.Nullable;

import org.springframework.validation.Errors;

/**
 * The rules of {@code delay.*}, applied by Spring Boot while it binds the properties (both properties classes are
 * {@link org.springframework.validation.Validator}s), so a wrong value fails startup whichever of the queue's beans
 * an application replaces. Every rejection's message starts with the property's name, so the exception says it even
 * where no failure analyzer prints it.
 *
 * <p>Spring Boot validates each nested group ({@code delay.worker}, {@code delay.jdbc}, ...) that has a bound value
 * as soon as it is bound, and a rejection there carries the value's origin (file and line); then the whole, which
 * repeats the groups' rules for the defaults. It stops at the first group with a bad value.
 */
final class PropertiesValidator {

    /** The code of every rejection; the messages carry the detail. */
    static final String INVALID = "delay.invalid";

    /** The groups validated by themselves as well, when bound. */
    private static final Set<Class<?>> GROUPS = Set.of(DelayQueueProperties.Jdbc.class,
            DelayQueueProperties.Hybrid.class, DelayQueueProperties.Redis.class, DelayQueueProperties.Worker.class,
            DelayQueueProperties.Retry.class, DelayQueueProperties.Payload.class, DelayQueueProperties.Retention.class,
            DelayQueueProperties.Health.class, DelayQueueProperties.ClockProperties.class);

    private final Errors errors;

    private PropertiesValidator(Errors errors) {
        this.errors = errors;
    }

    static boolean supports(Class<?> type) {
        return DelayQueueProperties.class == type || GROUPS.contains(type);
    }

    /** Validates {@link DelayQueueProperties} or one of its groups. */
    static void validate(Object target, Errors errors) {
        PropertiesValidator validator = new PropertiesValidator(errors);
        if (target instanceof DelayQueueProperties properties) {
            validator.all(properties);
        }
        else if (target instanceof DelayQueueProperties.Jdbc jdbc) {
            validator.jdbc("", jdbc);
        }
        else if (target instanceof DelayQueueProperties.Hybrid hybrid) {
            validator.hybrid("", hybrid);
        }
        else if (target instanceof DelayQueueProperties.Redis redis) {
            validator.redis("", redis);
        }
        else if (target instanceof DelayQueueProperties.Worker worker) {
            validator.worker("", worker);
        }
        else if (target instanceof DelayQueueProperties.Retry retry) {
            validator.retry("", retry);
        }
        else if (target instanceof DelayQueueProperties.Payload payload) {
            validator.payload("", payload);
        }
        else if (target instanceof DelayQueueProperties.Retention retention) {
            validator.retention("", retention);
        }
        else if (target instanceof DelayQueueProperties.Health health) {
            validator.positiveIfSet("maxOverdue", health.getMaxOverdue());
        }
        else if (target instanceof DelayQueueProperties.ClockProperties clock) {
            validator.positive("alignInterval", clock.getAlignInterval());
        }
    }

    static void validate(DelayQueueMetricsProperties metrics, Errors errors) {
        new PropertiesValidator(errors).positive("refreshInterval", metrics.getRefreshInterval());
    }

    private void all(DelayQueueProperties properties) {
        String instanceId = properties.getInstanceId();
        int longest = DelayQueueRuntimeBuilder.MAX_INSTANCE_ID_LENGTH;
        if (instanceId != null && (instanceId.isBlank() || instanceId.length() > longest)) {
            reject("instanceId", "must be 1 to " + longest
                    + " characters (the queue adds a 9-character suffix per process)");
        }
        List<String> paused = properties.getPausedTypes();
        for (String type : paused == null ? List.<String>of() : paused) {
            if (type == null || type.isBlank() || type.length() > TaskTable.MAX_TYPE_LENGTH) {
                reject("pausedTypes", "each type must be 1 to " + TaskTable.MAX_TYPE_LENGTH + " characters, not '"
                        + type + "': list the task types to pause, comma-separated");
            }
        }
        jdbc("jdbc.", properties.getJdbc());
        hybrid("hybrid.", properties.getHybrid());
        redis("redis.", properties.getRedis());
        worker("worker.", properties.getWorker());
        retry("retry.", properties.getRetry());
        payload("payload.", properties.getPayload());
        retention("retention.", properties.getRetention());
        positiveIfSet("health.maxOverdue", properties.getHealth().getMaxOverdue());
        positive("clock.alignInterval", properties.getClock().getAlignInterval());
    }

    private void jdbc(String at, DelayQueueProperties.Jdbc jdbc) {
        if (jdbc.getTableName() == null || !TableNames.isValidTaskTable(jdbc.getTableName())) {
            reject(at + "tableName", "must be a table name of letters, digits and underscores, not starting with a "
                    + "digit, at most " + TableNames.MAX_TASK_TABLE_LENGTH + " characters: the queue adds up to "
                    + TableNames.DERIVED_SUFFIX_ROOM + " to it for index names and the default "
                    + "delay.jdbc.schema-history-table, and MySQL and MariaDB allow "
                    + TableNames.MAX_IDENTIFIER_LENGTH);
        }
        String history = jdbc.getSchemaHistoryTable();
        if (history != null && !TableNames.isValidHistoryTable(history)) {
            reject(at + "schemaHistoryTable", "must be a table name of letters, digits and underscores, not "
                    + "starting with a digit, at most " + TableNames.MAX_IDENTIFIER_LENGTH + " characters; leave it "
                    + "unset for " + TableNames.defaultHistoryTable("<table-name>"));
        }
        else if (history != null && history.equalsIgnoreCase(jdbc.getTableName())) {
            reject(at + "schemaHistoryTable", "must not be the task table itself (delay.jdbc.table-name)");
        }
        positive(at + "pollInterval", jdbc.getPollInterval());
    }

    private void hybrid(String at, DelayQueueProperties.Hybrid hybrid) {
        positive(at + "threshold", hybrid.getThreshold());
        positive(at + "migrationInterval", hybrid.getMigrationInterval());
        if (hybrid.getThreshold() != null && hybrid.getMigrationInterval() != null
                && hybrid.getMigrationInterval().compareTo(hybrid.getThreshold()) >= 0) {
            reject(at + "migrationInterval", "must be shorter than delay.hybrid.threshold ("
                    + hybrid.getThreshold() + "), or tasks could fall due before they are moved into Redis");
        }
        atLeast(at + "migrationBatchSize", hybrid.getMigrationBatchSize(), 1);
        notNegative(at + "sweepGrace", hybrid.getSweepGrace());
        positive(at + "sweepInterval", hybrid.getSweepInterval());
    }

    private void redis(String at, DelayQueueProperties.Redis redis) {
        if (redis.getKeyPrefix() == null || redis.getKeyPrefix().isBlank()
                || !redis.getKeyPrefix().matches("[^{}\\s]+")) {
            reject(at + "keyPrefix", "must be non-empty, without spaces or braces (the queue adds its own hash tags)");
        }
        if (redis.getShards() < 1 || redis.getShards() > 1024) {
            reject(at + "shards", "must be between 1 and 1024");
        }
        positive(at + "maxWait", redis.getMaxWait());
    }

    private void worker(String at, DelayQueueProperties.Worker worker) {
        atLeast(at + "threads", worker.getThreads(), 1);
        atLeast(at + "prefetch", worker.getPrefetch(), 0);
        atLeast(at + "batchSize", worker.getBatchSize(), 1);
        notNegative(at + "claimAhead", worker.getClaimAhead());
        if (worker.getClaimAhead() != null && worker.getClaimAhead().compareTo(Duration.ofSeconds(1)) > 0) {
            reject(at + "claimAhead", "must be at most 1s: a claim made earlier holds tasks other instances could run");
        }
        if (worker.getLease() == null || worker.getLease().compareTo(Duration.ofSeconds(1)) < 0) {
            reject(at + "lease", "must be at least 1s");
        }
        positive(at + "recoveryInterval", worker.getRecoveryInterval());
        notNegative(at + "shutdownTimeout", worker.getShutdownTimeout());
        positiveIfSet(at + "handlerTimeout", worker.getHandlerTimeout());
    }

    private void retry(String at, DelayQueueProperties.Retry retry) {
        atLeast(at + "maxAttempts", retry.getMaxAttempts(), 1);
        notNegative(at + "backoff", retry.getBackoff());
        if (!(retry.getMultiplier() >= 1.0) || Double.isInfinite(retry.getMultiplier())) {
            reject(at + "multiplier", "must be a number of at least 1");
        }
        if (retry.getMaxBackoff() == null
                || retry.getBackoff() != null && retry.getMaxBackoff().compareTo(retry.getBackoff()) < 0) {
            reject(at + "maxBackoff", "must not be shorter than delay.retry.backoff (" + retry.getBackoff() + ")");
        }
    }

    private void payload(String at, DelayQueueProperties.Payload payload) {
        if (payload.getMaxSize() == null || payload.getMaxSize().toBytes() < 1
                || payload.getMaxSize().toBytes() > TaskTable.MAX_PAYLOAD_BYTES) {
            reject(at + "maxSize",
                    "must be between 1B and " + TaskTable.MAX_PAYLOAD_BYTES + "B (the payload column's size)");
        }
    }

    private void retention(String at, DelayQueueProperties.Retention retention) {
        positiveIfSet(at + "succeeded", retention.getSucceeded());
        positiveIfSet(at + "cancelled", retention.getCancelled());
        positiveIfSet(at + "failed", retention.getFailed());
        positive(at + "interval", retention.getInterval());
        atLeast(at + "batchSize", retention.getBatchSize(), 1);
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

    /** Rejects {@code field} (a path below the validated object, e.g. {@code worker.claimAhead}) for the rule. */
    private void reject(String field, String rule) {
        errors.rejectValue(field, INVALID, propertyName(errors.getObjectName(), field) + " " + rule);
    }

    /** {@code delay} and {@code worker.claimAhead} make {@code delay.worker.claim-ahead}. */
    static String propertyName(String prefix, String field) {
        return prefix + "." + field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
