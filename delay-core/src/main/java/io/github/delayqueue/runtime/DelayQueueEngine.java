package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.transaction.support.TransactionOperations;

/**
 * The consuming side of an instance, started and stopped by its {@link DelayQueueRuntime}: the dispatcher loop, the
 * worker pool, the result writer, and the periodic jobs (lease renewal and recovery, migration, index repair,
 * retention). The loops, the jobs and the pool's timers run in rounds on the starter's {@link TaskScheduler}
 * ({@link PeriodicJob}): a round that has nothing to do ends and schedules the next one, so a few threads serve them
 * all; rounds that may wait on the database or Redis leave one thread for the lease guard and keep one for lease
 * renewal and the result writer ({@link IoLanes});
 * handlers run on the executor the engine is given. Stopping happens in two steps, so that it fits a
 * container's grace period: first, before the web server drains its requests, the engine stops claiming and hands
 * back claimed tasks that never started ({@link #stopClaiming()}); then, after the web server has stopped
 * ({@link #drain()}), it lets running handlers finish until {@code shutdown-timeout} after the first step and writes
 * their results. Lease renewal and the lease guard go on until the last handler has ended, so a handler whose lease
 * cannot be renewed during the drain is interrupted before another instance may take its task. Only a handler still
 * running at the timeout leaves its task to the lease. A stopped engine can be started again (a context stopped and
 * started, a checkpoint restored) and then works as after its first start. While it runs, one non-daemon thread keeps
 * the JVM up, so an application without a web server does not exit when its {@code main} returns. It is the engine's
 * own rather than Boot's {@code spring.main.keep-alive}: that property must be set before the context exists, when
 * nothing knows yet whether an engine will run ({@code @EnableDelayQueue}, {@code delay.worker.enabled}), and an
 * application without Boot has no such property.
 * <p>
 * An engine built to be driven by its caller ({@code DelayQueueRuntimeBuilder.drivenByCaller}, the test kit's mode)
 * starts none of this: no dispatcher, no jobs, no timers, no keep-alive thread. Its caller runs what is due with
 * {@link #runDue(int)}, which claims, runs and completes tasks through the same store, pool, runner and result writer,
 * on the calling thread (the pool's executor then runs each task where it is handed over).
 */
class DelayQueueEngine {

    /**
     * How long stopping waits at most for the rounds of the periodic jobs under way, so the context does not close
     * the DataSource under a statement. A purge statement under load takes up to about a second (the soak of issue
     * 19); a round still on its way after this is left to fail (rolled back: nothing is lost).
     */
    static final long JOB_ROUND_MILLIS = 2_000;

    /** How long stopping waits at most to write the results of the handlers that finished. */
    private static final long RESULT_WRITE_MILLIS = 5_000;

    private static final Logger log = LoggerFactory.getLogger(DelayQueueEngine.class);

    private final EngineSettings settings;

    private final TaskStore store;

    private final Indexer indexer;

    private final Tiers tiers;

    private final QueueClock clock;

    private final WakeSignal wake;

    private final ResultWriter resultWriter;

    private final WorkerPool pool;

    private final HeldTasks held;

    private final Dispatcher dispatcher;

    private final List<PeriodicJob> jobs = new ArrayList<>();

    /** Releases follow-ups ({@link FollowUps}): every second, and at once when a keyed task's result is written. */
    private final PeriodicJob followUps;

    private final TaskScheduler scheduler;

    private final IndexWrites indexWrites;

    /** Claims straight from the store for {@link #runDue(int)}: the lease terms of this process. */
    private final ClaimTerms terms;

    /** The types this instance claims. */
    private final ClaimableTypes claimable;

    /** The types it serves and does not claim now. */
    private final PausedTypes paused;

    /** The follow-ups' release itself, which {@link #runDue(int)} runs on the calling thread. */
    private final FollowUps followUpRelease;

    /** Driven by its caller ({@link #runDue(int)}): no loop, job or timer of its own runs. */
    private final boolean drivenByCaller;

    private volatile boolean running;

    private volatile boolean drainPending;

    private volatile long stoppedClaimingAt;

    /** Not a daemon, unlike every other engine thread: a worker-only application (no web server) stays up. */
    private volatile @Nullable Thread keepAlive;

    DelayQueueEngine(EngineSettings settings, TaskStore store, Indexer indexer,
            HandlerRegistry registry, PayloadCodec codec, RetryPolicy retryPolicy, Tiers tiers, QueueClock clock,
            WakeSignal wake, TaskEvents events, HandlerInvoker invoker, TaskScheduler scheduler,
            Executor handlerExecutor, @Nullable TransactionOperations handlerTransactions, IndexWrites indexWrites,
            boolean drivenByCaller, PayloadUpcasters upcasters, Arrivals arrivals) {
        this.drivenByCaller = drivenByCaller;
        this.settings = settings;
        this.scheduler = scheduler;
        this.store = store;
        this.indexer = indexer;
        this.tiers = tiers;
        this.clock = clock;
        this.wake = wake;
        EngineSettings.Worker worker = settings.worker();
        this.terms = new ClaimTerms(settings.instanceId(), worker.lease());
        this.indexWrites = indexWrites;
        this.resultWriter = new ResultWriter(store, clock, indexWrites, wake, tiers, events);
        TaskRunner runner = new TaskRunner(registry, codec, retryPolicy, tiers, clock, events, settings.instanceId(),
                invoker, store, handlerTransactions, upcasters);
        this.held = new HeldTasks(clock, worker.lease());
        this.pool = new WorkerPool(worker.threads(), worker.prefetch(), held, registry, runner, resultWriter, clock,
                scheduler, handlerExecutor, worker.handlerTimeout());
        this.paused = new PausedTypes(store, settings.pausedTypes());
        this.claimable = new ClaimableTypes(registry, pool.lanes(), paused,
                new ClusterLimits(registry, clock::now, settings.jdbc().pollInterval().toMillis()));
        TaskSource source = arrivals.watching(tiers.indexed()
                ? new IndexTaskSource(indexer, store, terms, events, settings, clock::now, claimable)
                : new DatabaseTaskSource(store, terms, settings, claimable));
        this.dispatcher = new Dispatcher(source, pool, held, wake, clock, worker.batchSize(), store, terms,
                this::handBack, claimable, this::handBackBeyondRoom, events,
                longest(settings.redis().maxWait(), settings.jdbc().pollInterval()));
        job("lease renewal", worker.lease().dividedBy(3), IoLanes.Waits.DATABASE, new LeaseKeeper(store, held, terms,
                clock, tiers, indexWrites), events);
        job("lease recovery", worker.recoveryInterval(), new LeaseRecovery(store, registry, retryPolicy, tiers, clock,
                indexWrites, wake, events), events);
        this.followUpRelease = new FollowUps(store, indexer, tiers, clock, wake);
        this.followUps = job("follow-ups", Duration.ofSeconds(1), followUpRelease, events);
        job("paused types", Duration.ofSeconds(1), IoLanes.Waits.DATABASE, paused::refresh, events);
        resultWriter.onWritten(written -> {
            boolean keyed = held.anyKeyed(written);
            held.forget(written);
            claimable.written(); // a type at its cluster-wide limit that ended a task here has a slot again
            if (keyed) {
                followUps.runWithin(0); // a follow-up of one of them may wait: release it now, not within a second
            }
        });
        EngineSettings.Retention retention = settings.retention();
        if (!retention.byStatus().isEmpty()) {
            jobs.add(new RetentionPurge(store, retention, clock, arrivals).job(scheduler, events));
        }
        if (tiers.indexed()) {
            EngineSettings.Hybrid hybrid = settings.hybrid();
            job("migration", hybrid.migrationInterval(), new Migrator(store, indexer, tiers, clock,
                    hybrid.migrationBatchSize(), wake, events), events);
            job("index repair", Duration.ofSeconds(1), new IndexRepair(indexer, store, wake), events);
        }
    }

    private static Duration longest(Duration one, Duration other) {
        return one.compareTo(other) >= 0 ? one : other;
    }

    private PeriodicJob job(String name, Duration interval, Runnable body, TaskEvents events) {
        return job(name, interval, IoLanes.Waits.DATABASE_OR_REDIS, body, events);
    }

    private PeriodicJob job(String name, Duration interval, IoLanes.Waits waits, Runnable body,
            TaskEvents events) {
        PeriodicJob job = PeriodicJob.of(scheduler, name, interval, events, waits, body);
        jobs.add(job);
        return job;
    }

    synchronized void start() {
        if (running) {
            return;
        }
        if (drivenByCaller) {
            running = true; // nothing of its own to start: runDue(int) does the work
            log.info("Delay queue engine ready, driven by its caller: instance {}, {} mode", settings.instanceId(),
                    tiers.indexed() ? "hybrid" : "jdbc");
            return;
        }
        drain(); // a stop whose drain did not run yet (no drain lifecycle ran it): finish it first
        resultWriter.start(scheduler);
        pool.start();
        if (tiers.indexed()) {
            try {
                indexer.index().subscribe(wake::dueAt);
            }
            catch (RuntimeException ex) {
                log.warn("Could not subscribe to wake-ups ({}); consumers wake at least every {} until it is "
                        + "retried, every second once Redis answers", ex.toString(), settings.redis().maxWait());
            }
        }
        dispatcher.start(scheduler);
        jobs.forEach(PeriodicJob::start);
        keepAlive = keepAlive();
        running = true;
        log.info("Delay queue engine started: instance {}, {} worker thread(s), {} mode", settings.instanceId(),
                settings.worker().threads(), tiers.indexed() ? "hybrid" : "jdbc");
    }

    /** Both stop steps at once: stops claiming, then waits for running handlers. */
    synchronized void stop() {
        stopClaiming();
        drain();
    }

    /**
     * Stops claiming and hands back claimed tasks that never started. Running handlers go on until {@link #drain()}
     * waits for them (an application server runs it after the web server has stopped).
     */
    synchronized void stopClaiming() {
        if (!running) {
            return;
        }
        if (drivenByCaller) {
            running = false; // runDue(int) returns with nothing held, so there is nothing to hand back or drain
            return;
        }
        running = false;
        stoppedClaimingAt = System.currentTimeMillis();
        drainPending = true;
        try {
            indexer.index().unsubscribe();
            dispatcher.stop();
            handBack(pool.releaseUnstarted());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        log.info("Delay queue engine stopped claiming: instance {}; {} handler(s) still running", settings.instanceId(),
                held.count());
    }

    /**
     * Waits for running handlers until {@code shutdown-timeout} after claiming stopped, writes their results and
     * stops the engine's threads; a handler still running is interrupted and its task left to the lease.
     */
    synchronized void drain() {
        if (!drainPending) {
            return;
        }
        drainPending = false;
        try {
            long left = stoppedClaimingAt + settings.worker().shutdownTimeout().toMillis() - System.currentTimeMillis();
            boolean finished = pool.awaitRunning(Math.max(0, left));
            if (!finished) {
                log.warn("Handlers still running after delay.worker.shutdown-timeout ({}); their tasks stay RUNNING "
                        + "until their lease ends, then run again", settings.worker().shutdownTimeout());
            }
            resultWriter.stop(RESULT_WRITE_MILLIS);
            if (!finished) {
                pool.interruptRunning();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            pool.stopGuard();
            jobs.forEach(PeriodicJob::stop);
            PeriodicJob.awaitRounds(jobs, JOB_ROUND_MILLIS);
            endKeepAlive();
        }
        log.info("Delay queue engine stopped: instance {}", settings.instanceId());
    }

    /** Parks until the engine has stopped, so the JVM does not exit when {@code main} returns. */
    private static Thread keepAlive() {
        Thread thread = new Thread(() -> {
            try {
                Thread.sleep(Long.MAX_VALUE);
            }
            catch (InterruptedException ex) {
                // the engine stopped: nothing of ours holds the JVM any more
            }
        }, "delay-keep-alive");
        thread.setDaemon(false);
        thread.start();
        return thread;
    }

    private void endKeepAlive() {
        Thread thread = keepAlive;
        keepAlive = null;
        if (thread != null) {
            thread.interrupt();
        }
    }

    /** Claimed tasks that never started go back to pending, attempt uncounted, so others take them at once. */
    private void handBack(List<ClaimedTask> unstarted) {
        if (unstarted.isEmpty()) {
            return;
        }
        try {
            HandBack.release(store, tiers, indexWrites, unstarted, clock.now());
            log.info("Handed back {} claimed task(s) that had not started", unstarted.size());
        }
        catch (RuntimeException ex) {
            log.warn("Could not hand back {} claimed task(s) ({}); they run again when their lease ends",
                    unstarted.size(), ex.toString());
        }
    }

    /**
     * Hands back, quietly, what a claim brought of a type beyond its room: the next claims leave the type out until
     * it has room again. Logged at debug only: with a type at its limit and a backlog it happens often.
     */
    private void handBackBeyondRoom(List<ClaimedTask> beyond) {
        if (beyond.isEmpty()) {
            return;
        }
        try {
            HandBack.release(store, tiers, indexWrites, beyond, clock.now());
            log.debug("Handed back {} claimed task(s) of types at their concurrency", beyond.size());
        }
        catch (RuntimeException ex) {
            log.warn("Could not hand back {} claimed task(s) ({}); they run again when their lease ends",
                    beyond.size(), ex.toString());
        }
    }

    /**
     * Runs, on the calling thread, every task due at the queue clock's now, earliest first, until none is due: first
     * it releases follow-ups whose key is free, then claims due tasks straight from the store (both tiers, as the
     * sweep does: the time index is not asked), hands them to the worker pool, which runs them on this thread, and
     * writes their results; a task that one of them schedules due by now runs in the same call. Only for an engine
     * driven by its caller.
     *
     * @param maxRuns it stops once it made this many runs, for a caller that guards against a handler that
     *     schedules itself due at once, again and again
     * @return how many runs it made
     */
    synchronized int runDue(int maxRuns) {
        if (!drivenByCaller) {
            throw new IllegalStateException("This engine runs tasks on its own threads; only a runtime built with "
                    + "drivenByCaller(true) runs them on the caller's");
        }
        int runs = 0;
        while (runs < maxRuns) {
            followUpRelease.run();
            long now = clock.now();
            int limit = Math.max(1, Math.min(Math.min(settings.worker().batchSize(), pool.free()), maxRuns - runs));
            Set<String> types = claimable.now();
            List<ClaimedTask> due = new ArrayList<>(store.claimDue(TaskStatus.QUEUED, now, limit, types,
                    terms.at(now)));
            if (due.size() < limit) {
                due.addAll(store.claimDue(TaskStatus.SCHEDULED, now, limit - due.size(), types, terms.at(now)));
            }
            if (due.isEmpty()) {
                return runs;
            }
            due.sort(Comparator.comparingLong(ClaimedTask::dueAt).thenComparingLong(ClaimedTask::id));
            try {
                handBack(pool.submit(due, terms.at(now).until())); // runs them here, one after the other
            }
            finally {
                resultWriter.flush();
            }
            runs += due.size();
        }
        return runs;
    }

    /** Stops every thread at once, writing nothing back: what a crash does. For fault tests. */
    void halt() {
        running = false;
        dispatcher.halt();
        // the writer first: the handlers the pool interrupts hand in results ("could not renew its lease: goes
        // back"), which a writer still running wrote, so a fault test's survivor took the tasks before their lease
        resultWriter.halt();
        pool.halt();
        jobs.forEach(PeriodicJob::stop);
        indexer.index().unsubscribe();
        endKeepAlive();
    }

    boolean isRunning() {
        return running;
    }

    String instanceId() {
        return settings.instanceId();
    }

    /** Tasks this instance holds right now: claimed, running, or finished with the result not yet written. */
    int heldTasks() {
        return held.count();
    }

    int capacity() {
        return pool.capacity();
    }

    /** The types this instance has handlers for: the only ones it claims. */
    Set<String> servedTypes() {
        return claimable.served();
    }

    /** The types paused on this instance: on every instance, or by its configuration. */
    Set<String> pausedTypes() {
        return paused.all();
    }

    Set<String> typesAtClusterLimit() {
        return claimable.atClusterLimit();
    }

    /** Reads the shared pauses now, after this instance changed one: the others do within a second. */
    void refreshPaused() {
        paused.refresh();
    }

    /**
     * The engine's loops and periodic jobs, each with how long ago it last completed a run, for the health endpoint;
     * empty while the engine is stopped.
     */
    List<EngineWork> work() {
        if (!running || drivenByCaller) {
            return List.of();
        }
        long now = System.nanoTime();
        List<EngineWork> work = new ArrayList<>();
        work.add(dispatcher.liveness().status(now));
        work.add(resultWriter.liveness().status(now));
        jobs.forEach(job -> work.add(job.liveness().status(now)));
        return work;
    }
}
