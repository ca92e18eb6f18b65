package io.github.delayqueue.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.store.TaskStore;
import io.github.delayqueue.store.TaskTable;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * One delay queue on one {@link DataSource}: the {@link DelayQueue} to schedule with, and, unless the builder made a
 * producer-only instance, the engine that runs due tasks, together with the time index, the clock and the threads they
 * use. Built by {@link #builder(DataSource)} (Spring Boot's auto-configuration calls the same builder), started with
 * {@link #start()} and stopped with {@link #stop()} or {@link #close()}.
 * <p>
 * An application that runs on Spring Boot injects it to read {@link #status()} or to stop taking tasks itself; one
 * without Boot builds it, starts it after its handlers exist and closes it when it shuts down.
 * <p>
 * Stopping has two steps so that it fits a container's grace period: {@link #stopTakingTasks()} stops claiming and
 * hands back claimed tasks that never started; {@link #drain()} then waits for running handlers (up to the builder's
 * shutdown timeout, counted from the first step) and writes their results. {@link #stop()} runs both. A stopped
 * runtime can be started again and then works as after its first start.
 *
 * @since 0.1.0
 */
public final class DelayQueueRuntime implements AutoCloseable {

    private final DelayQueue queue;

    private final TaskInspector inspector;

    private final @Nullable DelayQueueEngine engine;

    private final Indexer indexer;

    private final Tiers tiers;

    private final QueueClock clock;

    private final DeadLetters deadLetters;

    private final List<PeriodicJob> jobs;

    private final List<AutoCloseable> owned;

    private final TaskScheduler scheduler;

    private volatile boolean running;

    private final TaskStore store;

    private final IndexWrites indexWrites;

    DelayQueueRuntime(DelayQueue queue, TaskInspector inspector, @Nullable DelayQueueEngine engine,
            Indexer indexer, Tiers tiers, QueueClock clock, DeadLetters deadLetters, List<PeriodicJob> jobs,
            List<AutoCloseable> owned, TaskScheduler scheduler, TaskStore store, IndexWrites indexWrites) {
        this.store = store;
        this.indexWrites = indexWrites;
        this.queue = queue;
        this.inspector = inspector;
        this.engine = engine;
        this.indexer = indexer;
        this.tiers = tiers;
        this.clock = clock;
        this.deadLetters = deadLetters;
        this.jobs = List.copyOf(jobs);
        this.owned = List.copyOf(owned);
        this.scheduler = scheduler;
    }

    /**
     * Starts building a queue whose tasks live in a table of {@code dataSource} (MySQL 8 or MariaDB 10.6+).
     *
     * @param dataSource where the task table is
     * @return a builder with the defaults of the {@code delay.*} properties
     */
    public static DelayQueueRuntimeBuilder builder(DataSource dataSource) {
        return new DelayQueueRuntimeBuilder(dataSource);
    }

    /**
     * Starts building a queue on a store of one's own (an implementation of the store SPI, such as the in-memory one
     * of {@code delay-test}), read by {@code inspector}.
     *
     * @param store where tasks are kept
     * @param inspector reads that store for the endpoint, the health and the gauges
     * @return a builder with the defaults of the {@code delay.*} properties
     */
    public static DelayQueueRuntimeBuilder builder(TaskStore store, TaskInspector inspector) {
        return new DelayQueueRuntimeBuilder(store, inspector);
    }

    /**
     * The queue applications schedule, cancel and look up tasks with.
     *
     * @return the queue, usable before {@link #start()} (producers need no engine)
     */
    public DelayQueue queue() {
        return queue;
    }

    /**
     * Read-only views of the task table: counts by status, overdue tasks, one task by id.
     *
     * @return the inspector on the queue's store
     */
    public TaskInspector inspector() {
        return inspector;
    }

    /**
     * Runs a dead-lettered ({@code FAILED}) or parked ({@code PARKED}) task again, from its first attempt, as soon as
     * possible.
     *
     * @param id the task's id
     * @return whether the task was {@code FAILED} or {@code PARKED} and is now pending again
     * @throws IllegalStateException when another task of its type and key is pending or running: a key names one
     *     live task at a time
     * @throws io.github.delayqueue.api.DelayQueueException when the database cannot be reached
     */
    public boolean rerun(long id) {
        return deadLetters.rerun(id);
    }

    /**
     * Runs every parked task of a type again, from its first attempt, as soon as possible: after a release that can
     * read their payloads (a payload upcaster, {@link DelayQueueRuntimeBuilder#payloadUpcaster}, or a handler whose
     * parameter type fits them) is deployed. A task whose key another task of its type now holds (pending or
     * running) stays parked, and is logged.
     *
     * @param type the task type
     * @return how many tasks were re-run
     * @throws io.github.delayqueue.api.DelayQueueException when the database cannot be reached; tasks re-run before
     *     it failed stay re-run, so calling it again goes on where it stopped
     */
    public long rerunParked(String type) {
        return deadLetters.rerunParked(type);
    }

    /**
     * Test mode ({@link DelayQueueRuntimeBuilder#drivenByCaller(boolean)}): runs every task due at {@link #now()} on
     * the calling thread, earliest first, until none is due, tasks that the runs schedule due by now included; each
     * run is claimed, run and completed as the engine's own threads would (retries, dead letters, completion in the
     * handler's transaction, follow-ups of keyed tasks). What the runs did, listeners hear ({@link TaskEvents}). A
     * test moves the clock and calls this; {@code delay-test}'s {@code DelayQueueTester} does both.
     *
     * @param maxRuns the most runs to make: it returns once it made them, due tasks left or not (a guard against a
     *     handler that schedules itself due at once, again and again)
     * @return how many runs it made (a retried task counts once per attempt)
     * @throws IllegalStateException when the runtime runs tasks on its own threads, or runs none (producer-only)
     */
    public int runDueTasks(int maxRuns) {
        DelayQueueEngine consumer = engine;
        if (consumer == null) {
            throw new IllegalStateException(
                    "This runtime runs no tasks (runsTasks(false), delay.worker.enabled=false)");
        }
        return consumer.runDue(maxRuns);
    }

    /**
     * The queue's time: the database's clock when the builder aligned to it, else the builder's clock.
     *
     * @return now, as the queue compares due times with it
     */
    public Instant now() {
        return Instant.ofEpochMilli(clock.now());
    }

    /**
     * The queue's clock with its measured offset to the database, for tools that measure lateness as the engine sees
     * it.
     *
     * @return the clock the engine compares due times with
     */
    public QueueClock clock() {
        return clock;
    }

    /**
     * Where due tasks are found: in the database alone, or, for tasks due soon, in the time index too.
     *
     * @return the mode the builder chose (hybrid when it was given a time index)
     */
    public Mode mode() {
        return tiers.indexed() ? Mode.HYBRID : Mode.JDBC;
    }

    /**
     * In hybrid mode, how soon a task must be due to go into the time index.
     *
     * @return the threshold, or {@code null} in jdbc mode
     */
    public @Nullable Duration hybridThreshold() {
        return tiers.indexed() ? Duration.ofMillis(tiers.thresholdMillis()) : null;
    }

    /**
     * Whether the time index answered its last call.
     *
     * @return {@code false} also in jdbc mode
     */
    public boolean indexAnswers() {
        return tiers.indexed() && indexer.available();
    }

    /**
     * How many shards the time index has, for gauges.
     *
     * @return the number of shards; 0 in jdbc mode
     */
    public int indexShards() {
        return tiers.indexed() ? indexer.index().shards() : 0;
    }

    /**
     * How many task ids a shard of the time index holds, for gauges.
     *
     * @param shard from 0 to {@link #indexShards()} - 1
     * @return the shard's size
     * @throws IllegalStateException in jdbc mode
     * @throws RuntimeException when the index does not answer
     */
    public long indexShardSize(int shard) {
        if (!tiers.indexed()) {
            throw new IllegalStateException("jdbc mode has no time index");
        }
        return indexer.index().size(shard);
    }

    /**
     * Pauses a task type on every instance that shares the task table: none claims a task of it any more (each reads
     * the pauses every second; this one at once), so its tasks stay pending, overdue ones included, until
     * {@link #resume}. Tasks already claimed or running go on. For a downstream service that is down, a bad deploy of
     * one handler, or a migration of what a type works on. Kept in the table {@code <table>_paused_types}, so it
     * survives restarts.
     *
     * @param type the task type
     * @return {@code true} when it was not paused before
     */
    public boolean pause(String type) {
        if (type == null || type.isBlank() || type.length() > TaskTable.MAX_TYPE_LENGTH) {
            throw new IllegalArgumentException("Cannot pause task type '" + type + "': a type is 1 to "
                    + TaskTable.MAX_TYPE_LENGTH + " characters");
        }
        boolean paused = store.pause(type, clock.now());
        refreshPaused();
        return paused;
    }

    /**
     * Resumes a type paused with {@link #pause}: every instance claims its tasks again within a second, this one at
     * once, and its overdue tasks run right away.
     *
     * @param type the task type
     * @return {@code true} when it was paused
     */
    public boolean resume(String type) {
        boolean resumed = store.resume(type);
        refreshPaused();
        return resumed;
    }

    /**
     * The types paused on every instance ({@link #pause}), read now from the task table.
     *
     * @return the paused types
     */
    public Set<String> pausedTypes() {
        return store.pausedTypes();
    }

    private void refreshPaused() {
        DelayQueueEngine consumer = engine;
        if (consumer != null) {
            consumer.refreshPaused();
        }
    }

    /**
     * What this instance does right now, for health checks.
     *
     * @return the runtime's status
     */
    public Status status() {
        Boolean indexAnswers = tiers.indexed() ? indexer.available() : null;
        DelayQueueEngine consumer = engine;
        if (consumer == null) {
            return new Status(mode(), indexAnswers, null, false, 0, 0, List.of(), Set.of(), Set.of(), Set.of());
        }
        List<Work> work = new ArrayList<>();
        for (EngineWork each : consumer.work()) {
            work.add(new Work(each.name(), each.sinceLastRun(), each.stalled()));
        }
        return new Status(mode(), indexAnswers, consumer.instanceId(), consumer.isRunning(), consumer.heldTasks(),
                consumer.capacity(), List.copyOf(work), consumer.servedTypes(), consumer.pausedTypes(),
                consumer.typesAtClusterLimit());
    }

    /**
     * Runs {@code work} every {@code interval} on the runtime's scheduler, as the engine runs its own jobs: one run at
     * a time, and whatever a run throws is logged (once per streak of failures) and the work runs again within half a
     * second. For parts that keep up with the queue, such as gauges that refresh a snapshot.
     *
     * @param name what the work does, for the log
     * @param interval the time between the end of one run and the start of the next
     * @param work what to run
     * @return started already; closing it stops the work
     */
    public AutoCloseable every(String name, Duration interval, Runnable work) {
        PeriodicJob job = PeriodicJob.of(scheduler, name, interval, work);
        job.start();
        return job::stop;
    }

    /**
     * Starts the engine (unless this is a producer-only instance) and the clock alignment; call it once the handlers
     * are registered. Starting a started runtime does nothing.
     */
    public synchronized void start() {
        if (!running) {
            jobs.forEach(PeriodicJob::start);
            running = true;
        }
        if (engine != null) {
            engine.start(); // also after stopTakingTasks() alone: it finishes that stop's drain first
        }
    }

    /**
     * The first stop step: no more claims; claimed tasks that have not started go back to pending at once, attempt
     * uncounted, for other instances to take. Running handlers go on until {@link #drain()}.
     */
    public synchronized void stopTakingTasks() {
        if (engine != null) {
            engine.stopClaiming();
        }
    }

    /**
     * The second stop step: waits for running handlers until the shutdown timeout after {@link #stopTakingTasks()},
     * writes their results and stops the runtime's work; a handler still running then is interrupted and its task
     * left to its lease. Returns once the tasks scheduled before it are in the time index (waiting 2 s at most: a
     * Redis that hangs does not hold the stop), so the application may close the index's connections next. Does
     * nothing else when nothing was stopped.
     */
    public synchronized void drain() {
        if (engine != null) {
            engine.drain();
        }
        indexWrites.flushAtStop(DelayQueueEngine.JOB_ROUND_MILLIS);
        if (running) {
            jobs.forEach(PeriodicJob::stop);
            PeriodicJob.awaitRounds(jobs, DelayQueueEngine.JOB_ROUND_MILLIS);
            running = false;
        }
    }

    /** Both stop steps at once. The runtime can be started again. */
    public synchronized void stop() {
        stopTakingTasks();
        drain();
    }

    /**
     * Whether the runtime was started and not stopped since.
     *
     * @return {@code true} between {@link #start()} and the end of a stop
     */
    public boolean isRunning() {
        return running;
    }

    /**
     * Stops, then releases what the builder created itself (the JDBC store's own connections, the threads it was not
     * given); a store, scheduler or executor the application gave stays the application's to close.
     */
    @Override
    public synchronized void close() {
        stop();
        for (AutoCloseable resource : owned) {
            try {
                resource.close();
            }
            catch (Exception ex) {
                LoggerFactory.getLogger(DelayQueueRuntime.class)
                    .warn("Could not close {}: {}", resource, ex.toString());
            }
        }
    }

    /** The engine, for tests in this package that crash it. */
    @Nullable DelayQueueEngine engine() {
        return engine;
    }

    /** The index, for tests in this package. */
    Indexer indexer() {
        return indexer;
    }

    /**
     * Where due tasks are found.
     *
     * @since 0.1.0
     */
    public enum Mode {

        /** The database alone: polled every {@code poll-interval}. */
        JDBC,

        /** Tasks due within the hybrid threshold also in the Redis time index, which wakes the instances. */
        HYBRID
    }

    /**
     * What the runtime does right now.
     *
     * @param mode where due tasks are found
     * @param indexAnswers whether the time index answered its last call; {@code null} in jdbc mode
     * @param instanceId the owner this instance writes on the tasks it claims; {@code null} on a producer-only instance
     * @param running whether the engine claims and runs tasks
     * @param heldTasks tasks this instance holds: claimed, running, or finished with the result not yet written
     * @param capacity the most tasks it holds at once
     * @param work the engine's loops and periodic jobs, each with when it last completed a run; empty when stopped
     * @param servedTypes the task types this instance has handlers for, the only ones it claims (a task of another
     *     type waits for an instance that runs it); empty on a producer-only instance
     * @param pausedTypes the types this instance does not claim now although it may serve them: paused on every
     *     instance ({@link #pause}, as last read) or by its {@code delay.paused-types}; empty on a producer-only
     *     instance
     * @param typesAtClusterLimit the types whose cluster-wide limit ({@code @DelayedHandler(clusterConcurrency,
     *     clusterStartsPerSecond)}) this instance's last claims found reached: their due tasks wait for a slot, which
     *     tells a type held back by its limit from one stuck for another reason; empty on a producer-only instance
     * @since 0.1.0
     */
    public record Status(Mode mode, @Nullable Boolean indexAnswers, @Nullable String instanceId, boolean running,
            int heldTasks, int capacity, List<Work> work, Set<String> servedTypes, Set<String> pausedTypes,
            Set<String> typesAtClusterLimit) {
    }

    /**
     * One of the engine's loops or periodic jobs.
     *
     * @param name what it does ("lease renewal", "dispatcher", ...)
     * @param sinceLastRun how long ago it last completed a run
     * @param stalled whether that is more than three of its intervals (at least 15 seconds) ago
     * @since 0.1.0
     */
    public record Work(String name, Duration sinceLastRun, boolean stalled) {
    }
}
