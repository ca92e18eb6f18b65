package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.store.TableNames;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of the delay queue, under {@code delay.*}. A {@link Validator}, so Spring Boot checks every value
 * while it binds them and startup fails naming the property and its rule.
 */
@ConfigurationProperties("delay")
public class DelayQueueProperties implements Validator {

    /**
     * Where due tasks are found: "hybrid" keeps tasks due soon in a Redis time index for millisecond wake-ups (needs
     * Redis); "jdbc" uses the database alone. The database is the source of truth in both.
     */
    private Mode mode = Mode.HYBRID;

    /**
     * Name of this instance, written on the tasks it claims. Defaults to host name and process id. A random suffix
     * is added either way, so two processes never share claims even when configured with the same name.
     */
    private @Nullable String instanceId;

    /**
     * Task types this instance does not claim although it has their handlers, for as long as it runs with this
     * setting: their tasks wait, pending, for an instance that runs them. To pause a type on every instance at once,
     * and resume it without a restart, use the delayqueue endpoint's "pause" and "resume" instead.
     */
    private @Nullable List<String> pausedTypes;

    private final Jdbc jdbc = new Jdbc();

    private final Hybrid hybrid = new Hybrid();

    private final Redis redis = new Redis();

    private final Worker worker = new Worker();

    private final Retry retry = new Retry();

    private final Payload payload = new Payload();

    private final Retention retention = new Retention();

    private final Health health = new Health();

    private final ClockProperties clock = new ClockProperties();

    public Mode getMode() {
        return mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    public @Nullable String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId;
    }

    public @Nullable List<String> getPausedTypes() {
        return pausedTypes;
    }

    public void setPausedTypes(@Nullable List<String> pausedTypes) {
        this.pausedTypes = pausedTypes;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Hybrid getHybrid() {
        return hybrid;
    }

    public Redis getRedis() {
        return redis;
    }

    public Worker getWorker() {
        return worker;
    }

    public Retry getRetry() {
        return retry;
    }

    public Payload getPayload() {
        return payload;
    }

    public Retention getRetention() {
        return retention;
    }

    public Health getHealth() {
        return health;
    }

    public ClockProperties getClock() {
        return clock;
    }

    /** This class and its groups ({@link Jdbc}, {@link Worker}, ...), which Boot validates as each is bound. */
    @Override
    public boolean supports(Class<?> type) {
        return PropertiesValidator.supports(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        PropertiesValidator.validate(target, errors);
    }

    /** Where due tasks are found. */
    public enum Mode {

        /** Redis time index for tasks due soon, the database for the rest and as the truth. */
        HYBRID,

        /** The database alone. */
        JDBC
    }

    /** The task table. */
    public static class Jdbc {

        /**
         * Name of the task table: letters, digits and underscores, at most 48 characters (index names and the
         * default schema history table add up to 16 to it). Reserved words work: the queue quotes the name.
         */
        private String tableName = "delay_task";

        /**
         * Name of the table where the queue's own Flyway records the schema version, at most 64 characters. Unset,
         * it is the task table's name followed by "_schema_history", so applications with different task tables in
         * one database never share it.
         */
        private @Nullable String schemaHistoryTable;

        /**
         * When to create and upgrade the task table at startup, with the queue's own Flyway, after the application's
         * own Flyway or Liquibase: "always"; "embedded", only on an embedded database (which MySQL and MariaDB
         * never are); "never", to manage it yourself from the scripts in classpath:db/delay/migration.
         */
        private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.ALWAYS;

        /**
         * How often an idle instance looks for due tasks in the database: in jdbc mode always, in hybrid mode while
         * Redis is unreachable. Tasks scheduled by the same instance wake it at once.
         */
        private Duration pollInterval = Duration.ofMillis(200);

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }

        public @Nullable String getSchemaHistoryTable() {
            return schemaHistoryTable;
        }

        public void setSchemaHistoryTable(@Nullable String schemaHistoryTable) {
            this.schemaHistoryTable = schemaHistoryTable;
        }

        /** The configured schema history table, else the one the task table's name implies. */
        public String resolvedSchemaHistoryTable() {
            return schemaHistoryTable != null ? schemaHistoryTable : TableNames.defaultHistoryTable(tableName);
        }

        public DatabaseInitializationMode getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }
    }

    /** The two tiers of hybrid mode. */
    public static class Hybrid {

        /**
         * Tasks due within this are indexed in Redis when scheduled; later ones stay in the database until the
         * migration moves them. Larger means more Redis memory (about 100 bytes a task) and fewer migrations.
         */
        private Duration threshold = Duration.ofHours(1);

        /** How often tasks that now fall due within the threshold move into Redis. Must be below the threshold. */
        private Duration migrationInterval = Duration.ofSeconds(30);

        /** Tasks moved per migration transaction. */
        private int migrationBatchSize = 1000;

        /**
         * How overdue a pending task must be before it is claimed straight from the database, because Redis lost
         * it, was flushed or was unreachable when it was scheduled. Bounds the extra lateness of such a task.
         */
        private Duration sweepGrace = Duration.ofSeconds(5);

        /** How often the database is searched for tasks overdue by more than the sweep grace. */
        private Duration sweepInterval = Duration.ofSeconds(1);

        public Duration getThreshold() {
            return threshold;
        }

        public void setThreshold(Duration threshold) {
            this.threshold = threshold;
        }

        public Duration getMigrationInterval() {
            return migrationInterval;
        }

        public void setMigrationInterval(Duration migrationInterval) {
            this.migrationInterval = migrationInterval;
        }

        public int getMigrationBatchSize() {
            return migrationBatchSize;
        }

        public void setMigrationBatchSize(int migrationBatchSize) {
            this.migrationBatchSize = migrationBatchSize;
        }

        public Duration getSweepGrace() {
            return sweepGrace;
        }

        public void setSweepGrace(Duration sweepGrace) {
            this.sweepGrace = sweepGrace;
        }

        public Duration getSweepInterval() {
            return sweepInterval;
        }

        public void setSweepInterval(Duration sweepInterval) {
            this.sweepInterval = sweepInterval;
        }
    }

    /** The Redis time index (hybrid mode); the connection is the application's spring.data.redis.*. */
    public static class Redis {

        /** Prefix of every Redis key and channel of the queue; instances sharing a queue share it. */
        private String keyPrefix = "delay";

        /**
         * Sorted sets the index is split into, each in its own cluster slot; raise it to spread a Redis Cluster's
         * load. Every instance of a queue must use the same value.
         */
        private int shards = 1;

        /** Longest a consumer sleeps without a wake-up; bounds the cost of a lost wake-up message. */
        private Duration maxWait = Duration.ofSeconds(1);

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public int getShards() {
            return shards;
        }

        public void setShards(int shards) {
            this.shards = shards;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }
    }

    /** The instance's task runners. */
    public static class Worker {

        /** Whether this instance runs tasks; false makes it producer-only (it can still schedule). */
        private boolean enabled = true;

        /** Threads that run handlers. */
        private int threads = 8;

        /**
         * Most tasks claimed beyond the busy threads, waiting for one (they keep their lease). Within this cap the
         * instance claims what its pool finishes in about a quarter of a second, so short handlers get large
         * claims and slow ones are not hoarded; 0 claims only for idle threads.
         */
        private int prefetch = 512;

        /**
         * How early a task is claimed before it falls due; the instance then starts it on a timer exactly when it
         * is due, so the claim's round trips are not added to its lateness. In hybrid mode a steady stream is claimed
         * in rounds half of it apart, each reaching half of it further, so a task is claimed up to one and a half
         * times this early. 0 claims only due tasks.
         */
        private Duration claimAhead = Duration.ofMillis(25);

        /** Most tasks claimed in one database round trip. */
        private int batchSize = 500;

        /**
         * How long a claim holds without renewal. The instance renews it while it holds the task; after an
         * instance dies, its tasks run again elsewhere once this has passed.
         */
        private Duration lease = Duration.ofSeconds(30);

        /** How often expired leases are looked for. */
        private Duration recoveryInterval = Duration.ofSeconds(5);

        /**
         * How long stopping waits for running handlers, counted from the moment it stops claiming (before the web
         * server drains), before leaving them to lease recovery. With the results written in at most 5 s more, the
         * default fits a Kubernetes pod's default grace period of 30 s.
         */
        private Duration shutdownTimeout = Duration.ofSeconds(20);

        /**
         * How long one attempt of a handler without a timeout of its own (@DelayedHandler(timeout)) may run. Past
         * it the handler is interrupted and the attempt counts as failed (retried after the backoff, or
         * dead-lettered after the last attempt); a handler that ignores the interrupt keeps its thread until it
         * returns, and is reported. Unset: handlers run as long as they take.
         */
        private @Nullable Duration handlerTimeout;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getThreads() {
            return threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }

        public int getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(int prefetch) {
            this.prefetch = prefetch;
        }

        public Duration getClaimAhead() {
            return claimAhead;
        }

        public void setClaimAhead(Duration claimAhead) {
            this.claimAhead = claimAhead;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public Duration getRecoveryInterval() {
            return recoveryInterval;
        }

        public void setRecoveryInterval(Duration recoveryInterval) {
            this.recoveryInterval = recoveryInterval;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public @Nullable Duration getHandlerTimeout() {
            return handlerTimeout;
        }

        public void setHandlerTimeout(@Nullable Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
        }
    }

    /** Retries of failed attempts; a handler's own attributes override these. */
    public static class Retry {

        /** Attempts a task gets in all, the first included, before it goes to the dead letter (FAILED). */
        private int maxAttempts = 3;

        /** Wait before the second attempt. */
        private Duration backoff = Duration.ofSeconds(10);

        /** Factor the wait grows by with each further attempt. */
        private double multiplier = 2.0;

        /** Longest wait between two attempts. */
        private Duration maxBackoff = Duration.ofHours(1);

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getBackoff() {
            return backoff;
        }

        public void setBackoff(Duration backoff) {
            this.backoff = backoff;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }
    }

    /** Task payloads. */
    public static class Payload {

        /** Largest payload accepted, measured as UTF-8 JSON; larger ones are rejected when scheduled. At most 16MB. */
        private DataSize maxSize = DataSize.ofKilobytes(64);

        /**
         * Whether payloads bind strictly to a handler's parameter type: a record component (a constructor parameter)
         * missing from the stored JSON, a null for a primitive or a fraction for an integer is a binding failure, and
         * the task is dead-lettered at once, instead of running with values Jackson made up (null, 0). Such a payload
         * is usually a task of another type (another application sharing the table, a wrong type name). Set false
         * to bind as the application's JsonMapper does, for payloads that lack components on purpose, e.g. tasks
         * scheduled before a component was added to the record. Unknown properties are ignored either way.
         */
        private boolean strictBinding = true;

        public DataSize getMaxSize() {
            return maxSize;
        }

        public void setMaxSize(DataSize maxSize) {
            this.maxSize = maxSize;
        }

        public boolean isStrictBinding() {
            return strictBinding;
        }

        public void setStrictBinding(boolean strictBinding) {
            this.strictBinding = strictBinding;
        }
    }

    /** How long finished tasks are kept before they are deleted. */
    public static class Retention {

        /** How long a SUCCEEDED task is kept after it finished; empty keeps them forever. */
        private @Nullable Duration succeeded = Duration.ofDays(1);

        /** How long a CANCELLED task is kept after it was cancelled; empty keeps them forever. */
        private @Nullable Duration cancelled = Duration.ofDays(1);

        /** How long a FAILED task (dead letter) is kept; empty, the default, keeps them until someone acts. */
        private @Nullable Duration failed;

        /** How often finished tasks are purged. */
        private Duration interval = Duration.ofMinutes(1);

        /** Rows deleted per statement. */
        private int batchSize = 1000;

        public @Nullable Duration getSucceeded() {
            return succeeded;
        }

        public void setSucceeded(@Nullable Duration succeeded) {
            this.succeeded = succeeded;
        }

        public @Nullable Duration getCancelled() {
            return cancelled;
        }

        public void setCancelled(@Nullable Duration cancelled) {
            this.cancelled = cancelled;
        }

        public @Nullable Duration getFailed() {
            return failed;
        }

        public void setFailed(@Nullable Duration failed) {
            this.failed = failed;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /**
     * Which clock due times are measured by ({@code delay.clock.*}); named so as not to shadow {@link java.time.Clock},
     * which configuration beside it uses.
     */
    public static class ClockProperties {

        /**
         * The reference all instances align their due times to: "database" reads the database server's clock and
         * corrects this instance's clock by the measured offset, so instances with skewed clocks agree; "local" uses
         * the application's Clock bean as it is (for tests that control time with a Clock of their own).
         */
        private ClockSource source = ClockSource.DATABASE;

        /**
         * How often the offset to the database clock is measured again. It is also measured 1s and 10s after
         * start, and every second while it fails.
         */
        private Duration alignInterval = Duration.ofMinutes(1);

        public ClockSource getSource() {
            return source;
        }

        public void setSource(ClockSource source) {
            this.source = source;
        }

        public Duration getAlignInterval() {
            return alignInterval;
        }

        public void setAlignInterval(Duration alignInterval) {
            this.alignInterval = alignInterval;
        }
    }

    /** The reference clock of due times. */
    public enum ClockSource {

        /** The database server's clock, shared by every instance. */
        DATABASE,

        /** The application's own Clock bean. */
        LOCAL
    }

    /** The {@code delayQueue} health indicator (with Spring Boot's actuator). */
    public static class Health {

        /**
         * How long the oldest overdue task (pending, past its due time) may wait before the health indicator reports
         * DOWN; empty, the default, never reports DOWN for lateness. Set it above the lateness a backlog may
         * legitimately reach, or a burst of tasks takes the instance out of its load balancer.
         */
        private @Nullable Duration maxOverdue;

        public @Nullable Duration getMaxOverdue() {
            return maxOverdue;
        }

        public void setMaxOverdue(@Nullable Duration maxOverdue) {
            this.maxOverdue = maxOverdue;
        }
    }
}
