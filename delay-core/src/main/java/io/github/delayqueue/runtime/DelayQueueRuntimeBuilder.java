package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.store.TaskSchema;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Assembles a {@link DelayQueueRuntime}: the one place the queue, the engine, the index and their threads are put
 * together, for Spring Boot's auto-configuration and for applications without Boot alike. Every setting starts at the
 * default of its {@code delay.*} property (docs/properties.md); a time index makes the runtime hybrid, none keeps it
 * in jdbc mode. Threads the builder is not given it creates, and {@link DelayQueueRuntime#close()} stops them.
 *
 * @since 0.1.0
 */
public final class DelayQueueRuntimeBuilder {

    /**
     * The threads of the scheduler the runtime makes when it is given none (and of the Spring Boot starter's). Every
     * loop and job runs in short rounds on it, so none holds a thread for good; rounds that may wait on the database
     * or Redis leave one thread for the lease guard and, from three threads on, keep one for lease renewal and the
     * result writer. Eight leave the database jobs (migration, lease recovery, the purge) a thread while Redis hangs
     * and holds the rounds that call it (claims, index writes, index repair, gauges) for its timeout. A scheduler of
     * one or two threads works too, with less room while the database or Redis hangs.
     */
    public static final int SCHEDULER_THREADS = 8;

    /** The longest {@link #instanceId(String)}: the owner column holds it and a 9-character suffix per process. */
    public static final int MAX_INSTANCE_ID_LENGTH = InstanceIds.MAX_LENGTH - InstanceIds.SUFFIX_LENGTH;

    private final @Nullable DataSource dataSource;

    private @Nullable TaskStore store;

    private @Nullable TaskInspector inspector;

    private String tableName = "delay_task";

    private boolean initializeSchema;

    private @Nullable TimeIndex index;

    private Duration hybridThreshold = Duration.ofHours(1);

    private HandlerRegistry handlers = new HandlerRegistry();

    private final List<Object> annotatedHandlers = new ArrayList<>();

    private @Nullable PayloadCodec codec;

    private final Map<String, UnaryOperator<String>> upcasters = new HashMap<>();

    private long maxPayloadBytes = 64 * 1024;

    private int maxAttempts = 3;

    private Backoff backoff = new Backoff(Duration.ofSeconds(10), 2.0, Duration.ofHours(1));

    private final List<TaskEvents> listeners = new ArrayList<>();

    private HandlerInvoker invoker = HandlerInvoker.DIRECT;

    private @Nullable PlatformTransactionManager handlerTransactionManager;

    private TraceContextSource traceContextSource = TraceContextSource.NONE;

    private Clock clock = Clock.systemUTC();

    private @Nullable Duration databaseClockAlignment = Duration.ofMinutes(1);

    private @Nullable TaskScheduler scheduler;

    private @Nullable Executor handlerExecutor;

    private boolean runsTasks = true;

    private boolean drivenByCaller;

    private @Nullable String instanceId;

    private int workerThreads = 8;

    private int prefetch = 512;

    private int batchSize = 500;

    private Duration claimAhead = Duration.ofMillis(25);

    private Duration lease = Duration.ofSeconds(30);

    private Duration shutdownTimeout = Duration.ofSeconds(20);

    private @Nullable Duration handlerTimeout;

    private Duration recoveryInterval = Duration.ofSeconds(5);

    private Duration pollInterval = Duration.ofMillis(200);

    private Duration indexMaxWait = Duration.ofSeconds(1);

    private Duration sweepGrace = Duration.ofSeconds(5);

    private Set<String> pausedTypes = Set.of();

    private Duration sweepInterval = Duration.ofSeconds(1);

    private Duration migrationInterval = Duration.ofSeconds(30);

    private int migrationBatchSize = 1000;

    private final Map<TaskStatus, Duration> retention = new EnumMap<>(Map.of(TaskStatus.SUCCEEDED, Duration.ofDays(1),
            TaskStatus.CANCELLED, Duration.ofDays(1)));

    private Duration retentionInterval = Duration.ofMinutes(1);

    private int retentionBatchSize = 1000;

    DelayQueueRuntimeBuilder(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    DelayQueueRuntimeBuilder(TaskStore store, TaskInspector inspector) {
        this.dataSource = null;
        this.store = Objects.requireNonNull(store, "store");
        this.inspector = Objects.requireNonNull(inspector, "inspector");
        this.databaseClockAlignment = null; // a store of one's own has no database clock to align to
    }

    /**
     * A store of one's own instead of the task table of the builder's {@code DataSource} (the store and index SPIs
     * may change before 1.0; {@code delay-test} has their contracts).
     *
     * @param store where tasks are kept
     * @param inspector reads that store
     * @return this builder
     */
    public DelayQueueRuntimeBuilder store(TaskStore store, TaskInspector inspector) {
        this.store = Objects.requireNonNull(store, "store");
        this.inspector = Objects.requireNonNull(inspector, "inspector");
        return this;
    }

    /**
     * The task table ({@code delay.jdbc.table-name}).
     *
     * @param tableName at most 48 characters
     * @return this builder
     */
    public DelayQueueRuntimeBuilder tableName(String tableName) {
        this.tableName = Objects.requireNonNull(tableName, "tableName");
        return this;
    }

    /**
     * Whether {@link #build()} creates or upgrades the task table with the queue's own Flyway migrations (needs
     * flyway-core and flyway-mysql). Off by default: Spring Boot runs them as a database initializer of its own.
     *
     * @param initializeSchema whether to migrate the table when building
     * @return this builder
     */
    public DelayQueueRuntimeBuilder initializeSchema(boolean initializeSchema) {
        this.initializeSchema = initializeSchema;
        return this;
    }

    /**
     * Hybrid mode: tasks due within {@link #hybridThreshold(Duration)} are also kept in this index, which wakes the
     * instances when one falls due ({@code delay.mode=hybrid}; for Redis, a {@code RedisTimeIndex}).
     *
     * @param index the time index, or {@code null} for jdbc mode
     * @return this builder
     */
    public DelayQueueRuntimeBuilder timeIndex(@Nullable TimeIndex index) {
        this.index = index;
        return this;
    }

    /**
     * How soon a task must be due to go into the time index ({@code delay.hybrid.threshold}).
     *
     * @param threshold a positive duration
     * @return this builder
     */
    public DelayQueueRuntimeBuilder hybridThreshold(Duration threshold) {
        this.hybridThreshold = positive(threshold, "hybridThreshold");
        return this;
    }

    /**
     * Objects whose {@code @DelayedHandler} methods handle tasks. Placeholders in the annotation are not resolved
     * here: Spring Boot's auto-configuration registers handler beans with the environment's values.
     *
     * @param beans handler objects
     * @return this builder
     */
    public DelayQueueRuntimeBuilder handlers(Object... beans) {
        annotatedHandlers.addAll(List.of(beans));
        return this;
    }

    /**
     * The registry the engine looks handlers up in, for handlers registered after the runtime was built (Spring
     * registers handler beans as they are created, before the runtime starts).
     *
     * @param registry the registry to use instead of a new one
     * @return this builder
     */
    public DelayQueueRuntimeBuilder handlerRegistry(HandlerRegistry registry) {
        this.handlers = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /**
     * Adapts the stored payloads of a type to its handler's current parameter type, before they are bound: a task
     * waits in the table across deploys, so a payload written by an older version of its class must still run after
     * the class changed (a component renamed, split, or made required). The upcaster gets the stored JSON, old or
     * current, and returns JSON the current class binds; it must leave current JSON as it is (it sees every payload of
     * the type). A payload that does not bind even so, or that the upcaster fails on, parks its task
     * ({@code PARKED}, with the reason) instead of running or failing it; re-run it once a release reads it
     * ({@link DelayQueueRuntime#rerun}, {@link DelayQueueRuntime#rerunParked}). With Spring Boot, register upcasters
     * from a {@code DelayQueueRuntimeCustomizer}. One per type; a later one for the same type replaces it.
     *
     * @param type the task type whose payloads it adapts
     * @param upcaster stored JSON in, current JSON out, e.g. a Jackson tree edit
     * @return this builder
     */
    public DelayQueueRuntimeBuilder payloadUpcaster(String type, UnaryOperator<String> upcaster) {
        upcasters.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(upcaster, "upcaster"));
        return this;
    }

    /**
     * How payloads are written and read (default: Jackson, binding strictly).
     *
     * @param codec the payload codec
     * @return this builder
     */
    public DelayQueueRuntimeBuilder payloadCodec(PayloadCodec codec) {
        this.codec = Objects.requireNonNull(codec, "codec");
        return this;
    }

    /**
     * The largest payload {@code schedule} accepts ({@code delay.payload.max-size}).
     *
     * @param bytes UTF-8 bytes of the serialized payload
     * @return this builder
     */
    public DelayQueueRuntimeBuilder maxPayloadBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxPayloadBytes must be positive, was " + bytes);
        }
        this.maxPayloadBytes = bytes;
        return this;
    }

    /**
     * The retry policy of handlers that set none ({@code delay.retry.*}).
     *
     * @param maxAttempts attempts in all, at least 1
     * @param backoff the wait before each retry
     * @return this builder
     */
    public DelayQueueRuntimeBuilder retry(int maxAttempts, Backoff backoff) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        return this;
    }

    /**
     * Adds a listener for what happens to tasks (meters, logs); listeners are called in the order added, and one
     * that throws does not stop the others.
     *
     * @param listener the listener
     * @return this builder
     */
    public DelayQueueRuntimeBuilder listener(TaskEvents listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * What calls a handler (default: directly), for instance to observe each run.
     *
     * @param invoker the handler invoker
     * @return this builder
     */
    public DelayQueueRuntimeBuilder handlerInvoker(HandlerInvoker invoker) {
        this.invoker = Objects.requireNonNull(invoker, "invoker");
        return this;
    }

    /**
     * The transactions that handlers completing in theirs run in ({@code @DelayedHandler(transactional = true)}, or a
     * {@code @Transactional} handler): the application's transaction manager, so that the handler's own
     * {@code @Transactional} and the repositories it calls join the transaction the task completes in. It must
     * manage the queue's DataSource ({@code JdbcTransactionManager}, {@code DataSourceTransactionManager}, or a
     * {@code JpaTransactionManager} of it); a task whose handler's transaction holds no connection of it fails its
     * attempt, with an error that says so.
     *
     * @param transactionManager default: a {@code JdbcTransactionManager} of the builder's DataSource; with a store
     *     of one's own and no DataSource, none, and such handlers complete after they return, as any other
     * @return this builder
     */
    public DelayQueueRuntimeBuilder handlerTransactionManager(PlatformTransactionManager transactionManager) {
        this.handlerTransactionManager = Objects.requireNonNull(transactionManager, "transactionManager");
        return this;
    }

    /**
     * Where each scheduling call finds the trace it runs in, which its tasks store and their runs continue (default:
     * none, the runs start traces of their own).
     *
     * @param source the trace context source
     * @return this builder
     */
    public DelayQueueRuntimeBuilder traceContextSource(TraceContextSource source) {
        this.traceContextSource = Objects.requireNonNull(source, "source");
        return this;
    }

    /**
     * The application's clock, which due times given as instants are read against.
     *
     * @param clock default {@link Clock#systemUTC()}
     * @return this builder
     */
    public DelayQueueRuntimeBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * How often the queue's clock is aligned to the database's ({@code delay.clock.source=database},
     * {@code delay.clock.align-interval}); {@code null} uses the application's clock as it is
     * ({@code delay.clock.source=application}).
     *
     * @param interval how often to measure the offset, or {@code null}
     * @return this builder
     */
    public DelayQueueRuntimeBuilder databaseClockAlignment(@Nullable Duration interval) {
        this.databaseClockAlignment = interval == null ? null : positive(interval, "databaseClockAlignment");
        return this;
    }

    /**
     * The scheduler the engine's loops, jobs and timers run on (default: one of its own).
     *
     * @param scheduler a scheduler with enough threads for the engine's work
     * @return this builder
     */
    public DelayQueueRuntimeBuilder scheduler(TaskScheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /**
     * The executor handlers run on (default: a pool of {@link #workerThreads(int)} threads of its own).
     *
     * @param executor the handlers' executor
     * @return this builder
     */
    public DelayQueueRuntimeBuilder handlerExecutor(Executor executor) {
        this.handlerExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Whether this instance runs tasks ({@code delay.worker.enabled}); a producer-only instance only schedules.
     *
     * @param runsTasks {@code false} for a producer-only instance
     * @return this builder
     */
    public DelayQueueRuntimeBuilder runsTasks(boolean runsTasks) {
        this.runsTasks = runsTasks;
        return this;
    }

    /**
     * Test mode: the engine runs nothing on its own (no dispatcher, no periodic jobs, no clock alignment to the
     * database), and {@link DelayQueueRuntime#runDueTasks(int)} runs what is due, on the calling thread, through the
     * same claim, handler run and result writes as the engine's own threads would. With a clock the test moves
     * ({@link #clock(Clock)}), a test decides when tasks fall due instead of waiting for them; {@code delay-test}'s
     * {@code DelayQueueTester} builds on it. Not for production: nothing runs until something calls it.
     *
     * @param drivenByCaller {@code true} for test mode
     * @return this builder
     */
    public DelayQueueRuntimeBuilder drivenByCaller(boolean drivenByCaller) {
        this.drivenByCaller = drivenByCaller;
        return this;
    }

    /**
     * The name this instance writes on the tasks it claims ({@code delay.instance-id}), followed by a random
     * suffix per process.
     *
     * @param instanceId the name, or {@code null} for the host name
     * @return this builder
     */
    public DelayQueueRuntimeBuilder instanceId(@Nullable String instanceId) {
        if (instanceId != null && (instanceId.isBlank() || instanceId.length() > MAX_INSTANCE_ID_LENGTH)) {
            throw new IllegalArgumentException("instanceId must be 1 to " + MAX_INSTANCE_ID_LENGTH
                    + " characters (the queue adds a 9-character suffix per process), was '" + instanceId + "'");
        }
        this.instanceId = instanceId;
        return this;
    }

    /**
     * Handlers running at once on this instance ({@code delay.worker.threads}).
     *
     * @param threads at least 1
     * @return this builder
     */
    public DelayQueueRuntimeBuilder workerThreads(int threads) {
        this.workerThreads = atLeastOne(threads, "workerThreads");
        return this;
    }

    /**
     * Tasks claimed beyond the worker threads, waiting for one ({@code delay.worker.prefetch}).
     *
     * @param prefetch zero or more
     * @return this builder
     */
    public DelayQueueRuntimeBuilder prefetch(int prefetch) {
        if (prefetch < 0) {
            throw new IllegalArgumentException("prefetch must not be negative, was " + prefetch);
        }
        this.prefetch = prefetch;
        return this;
    }

    /**
     * The most tasks one claim takes ({@code delay.worker.batch-size}).
     *
     * @param batchSize at least 1
     * @return this builder
     */
    public DelayQueueRuntimeBuilder batchSize(int batchSize) {
        this.batchSize = atLeastOne(batchSize, "batchSize");
        return this;
    }

    /**
     * How early a task may be claimed before it falls due ({@code delay.worker.claim-ahead}); it starts at its due
     * time.
     *
     * @param claimAhead zero or more
     * @return this builder
     */
    public DelayQueueRuntimeBuilder claimAhead(Duration claimAhead) {
        this.claimAhead = Objects.requireNonNull(claimAhead, "claimAhead");
        return this;
    }

    /**
     * How long a claim holds without renewal ({@code delay.worker.lease}): after it, another instance runs the task.
     *
     * @param lease a positive duration
     * @return this builder
     */
    public DelayQueueRuntimeBuilder lease(Duration lease) {
        this.lease = positive(lease, "lease");
        return this;
    }

    /**
     * How long {@link DelayQueueRuntime#drain()} waits for running handlers ({@code delay.worker.shutdown-timeout}).
     *
     * @param timeout zero or more
     * @return this builder
     */
    public DelayQueueRuntimeBuilder shutdownTimeout(Duration timeout) {
        this.shutdownTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
    }

    /**
     * How long one attempt of a handler without a timeout of its own ({@code DelayedHandler#timeout}) may run before
     * it is interrupted and counts as failed ({@code delay.worker.handler-timeout}); {@code null}, the default, lets
     * such handlers run as long as they take.
     *
     * @param timeout a positive duration, or {@code null} for none
     * @return this builder
     */
    public DelayQueueRuntimeBuilder handlerTimeout(@Nullable Duration timeout) {
        this.handlerTimeout = timeout == null ? null : positive(timeout, "handlerTimeout");
        return this;
    }

    /**
     * How often expired leases are looked for ({@code delay.worker.recovery-interval}).
     *
     * @param interval a positive duration
     * @return this builder
     */
    public DelayQueueRuntimeBuilder recoveryInterval(Duration interval) {
        this.recoveryInterval = positive(interval, "recoveryInterval");
        return this;
    }

    /**
     * How often an idle database poller looks for due tasks ({@code delay.jdbc.poll-interval}).
     *
     * @param interval a positive duration
     * @return this builder
     */
    public DelayQueueRuntimeBuilder pollInterval(Duration interval) {
        this.pollInterval = positive(interval, "pollInterval");
        return this;
    }

    /**
     * The longest the index consumer sleeps without a wake-up ({@code delay.redis.max-wait}).
     *
     * @param maxWait a positive duration
     * @return this builder
     */
    public DelayQueueRuntimeBuilder indexMaxWait(Duration maxWait) {
        this.indexMaxWait = positive(maxWait, "indexMaxWait");
        return this;
    }

    /**
     * The database sweep of hybrid mode ({@code delay.hybrid.sweep-grace}, {@code delay.hybrid.sweep-interval}).
     *
     * @param grace how overdue a pending task must be before the sweep claims it from the database
     * @param interval how often the sweep runs
     * @return this builder
     */
    public DelayQueueRuntimeBuilder sweep(Duration grace, Duration interval) {
        this.sweepGrace = Objects.requireNonNull(grace, "grace");
        this.sweepInterval = positive(interval, "sweepInterval");
        return this;
    }

    /**
     * The move of tasks falling due soon into the index ({@code delay.hybrid.migration-interval},
     * {@code delay.hybrid.migration-batch-size}).
     *
     * @param interval how often it runs
     * @param batchSize rows per transaction
     * @return this builder
     */
    public DelayQueueRuntimeBuilder migration(Duration interval, int batchSize) {
        this.migrationInterval = positive(interval, "migrationInterval");
        this.migrationBatchSize = atLeastOne(batchSize, "migrationBatchSize");
        return this;
    }

    /**
     * Task types this instance does not claim although it has their handlers ({@code delay.paused-types}), for as
     * long as it runs with this setting: their tasks wait, pending, for an instance that runs them. To pause a type on
     * every instance at once, and to resume it without a restart, use {@link DelayQueueRuntime#pause} instead.
     *
     * @param types the task types; empty for none
     * @return this builder
     */
    public DelayQueueRuntimeBuilder pausedTypes(Collection<String> types) {
        for (String type : types) {
            if (type == null || type.isBlank()) {
                throw new IllegalArgumentException("pausedTypes: a task type is empty; list the types to pause by "
                        + "their names, or none");
            }
        }
        this.pausedTypes = Set.copyOf(types);
        return this;
    }

    /**
     * How long finished tasks of a status are kept ({@code delay.retention.*}).
     *
     * @param status {@code SUCCEEDED}, {@code CANCELLED} or {@code FAILED}
     * @param keep how long to keep them, or {@code null} to keep them forever
     * @return this builder
     */
    public DelayQueueRuntimeBuilder retention(TaskStatus status, @Nullable Duration keep) {
        if (keep == null) {
            retention.remove(status);
        }
        else {
            retention.put(status, keep);
        }
        return this;
    }

    /**
     * The purge of finished tasks ({@code delay.retention.interval}, {@code delay.retention.batch-size}).
     *
     * @param interval how often it runs, and how long one run may go on deleting
     * @param batchSize rows per statement
     * @return this builder
     */
    public DelayQueueRuntimeBuilder purge(Duration interval, int batchSize) {
        this.retentionInterval = positive(interval, "retentionInterval");
        this.retentionBatchSize = atLeastOne(batchSize, "retentionBatchSize");
        return this;
    }

    /**
     * Builds the runtime, not yet started: its queue can schedule at once; {@link DelayQueueRuntime#start()} starts
     * running tasks.
     *
     * @return the runtime
     */
    public DelayQueueRuntime build() {
        List<AutoCloseable> owned = new ArrayList<>();
        if (initializeSchema && dataSource != null) {
            new TaskSchema(dataSource, tableName, tableName + "_schema_history").migrate();
        }
        TaskStore taskStore = store != null ? store : TaskStore.jdbc(requireDataSource(), tableName, lease);
        if (store == null && taskStore instanceof AutoCloseable closeable) {
            owned.add(closeable);
        }
        TaskInspector taskInspector = inspector != null ? inspector : TaskInspector.jdbc(requireDataSource(),
                tableName);
        TaskScheduler taskScheduler = scheduler != null ? scheduler : ownScheduler(owned);
        QueueClock queueClock = new QueueClock(clock);
        List<PeriodicJob> jobs = new ArrayList<>();
        if (databaseClockAlignment != null && !drivenByCaller) { // test mode: the test's clock is the reference
            jobs.add(new ClockAligner(taskScheduler, queueClock, taskStore::currentTimeMicros,
                    databaseClockAlignment));
        }
        TaskEvents events = TaskEvents.composite(listeners);
        Indexer indexer = new Indexer(index != null ? index : new NoTimeIndex(), events);
        Tiers tiers = index == null ? Tiers.databaseOnly() : Tiers.hybrid(hybridThreshold);
        WakeSignal wake = new WakeSignal(queueClock);
        PayloadCodec payloadCodec = codec != null ? codec
                : new JacksonPayloadCodec(JsonMapper.builder().findAndAddModules().build(), true);
        annotatedHandlers.forEach(bean -> handlers.registerAnnotated(bean, UnaryOperator.identity(), () -> backoff));
        // one writer of the index for the queue's callers and the engine: adds of concurrent callers share a call
        IndexWrites indexWrites = new IndexWrites(indexer, taskScheduler, wake::dueAt);
        // how fast tasks come in, for the purge: from the ids this instance's callers create and its engine claims
        Arrivals arrivals = new Arrivals();
        DefaultDelayQueue queue = new DefaultDelayQueue(taskStore, indexer, indexWrites::add, payloadCodec,
                maxPayloadBytes, tiers, queueClock, wake, events, traceContextSource, arrivals::saw);
        DelayQueueEngine engine = null;
        if (runsTasks) {
            // driven by its caller, each task runs on the thread that hands it over: the caller's
            Executor executor = drivenByCaller ? Runnable::run
                    : handlerExecutor != null ? handlerExecutor : ownHandlerExecutor(owned);
            engine = new DelayQueueEngine(settings(), taskStore, indexer, handlers, payloadCodec,
                    new RetryPolicy(maxAttempts, backoff), tiers, queueClock, wake, events, invoker, taskScheduler,
                    executor, handlerTransactions(), indexWrites, drivenByCaller, new PayloadUpcasters(upcasters),
                    arrivals);
        }
        else if (index != null) {
            // a producer-only instance has no engine to notice that the index is back; this does, once a second
            jobs.add(new IndexWatch(taskScheduler, indexer, taskStore, wake, Duration.ofSeconds(1)));
        }
        DeadLetters deadLetters = new DeadLetters(taskInspector, indexer, tiers, queueClock, wake);
        return new DelayQueueRuntime(queue, taskInspector, engine, indexer, tiers, queueClock, deadLetters,
                jobs, owned, taskScheduler, taskStore, indexWrites);
    }

    private @Nullable TransactionOperations handlerTransactions() {
        PlatformTransactionManager manager = handlerTransactionManager != null ? handlerTransactionManager
                : dataSource != null ? new JdbcTransactionManager(dataSource) : null;
        return manager == null ? null : new TransactionTemplate(manager);
    }

    private EngineSettings settings() {
        return new EngineSettings(InstanceIds.resolve(instanceId),
                new EngineSettings.Worker(workerThreads, prefetch, batchSize, claimAhead, lease, shutdownTimeout,
                        recoveryInterval, handlerTimeout),
                new EngineSettings.Jdbc(pollInterval), new EngineSettings.Redis(indexMaxWait),
                new EngineSettings.Hybrid(sweepGrace, sweepInterval, migrationInterval, migrationBatchSize),
                new EngineSettings.Retention(Map.copyOf(retention), retentionInterval, retentionBatchSize),
                Set.copyOf(pausedTypes));
    }

    private TaskScheduler ownScheduler(List<AutoCloseable> owned) {
        ThreadPoolTaskScheduler own = new ThreadPoolTaskScheduler();
        own.setPoolSize(SCHEDULER_THREADS);
        own.setThreadNamePrefix("delay-scheduler-");
        own.setDaemon(true);
        own.setRemoveOnCancelPolicy(true);
        own.initialize();
        owned.add(own::shutdown);
        return own;
    }

    private Executor ownHandlerExecutor(List<AutoCloseable> owned) {
        ThreadPoolTaskExecutor own = new ThreadPoolTaskExecutor();
        own.setCorePoolSize(workerThreads);
        own.setMaxPoolSize(workerThreads);
        own.setThreadNamePrefix("delay-worker-");
        own.setDaemon(true);
        own.initialize();
        owned.add(own::shutdown);
        return own;
    }

    private DataSource requireDataSource() {
        return Objects.requireNonNull(dataSource, "dataSource");
    }

    private static Duration positive(Duration duration, String name) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + duration);
        }
        return duration;
    }

    private static int atLeastOne(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
        return value;
    }
}
