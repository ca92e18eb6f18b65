package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The consuming side of an instance, started and stopped with the application context: the dispatcher thread, the
 * worker pool, the result writer, and the periodic jobs (lease renewal and recovery, migration, index repair,
 * retention) on a {@link ThreadPoolTaskScheduler} of its own. Stopping stops claiming, hands back claimed tasks that
 * never started, lets running handlers finish up to the shutdown timeout and writes their results.
 */
public class DelayQueueEngine implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueEngine.class);

    private final EngineSettings settings;

    private final TaskStore store;

    private final @Nullable Indexer indexer;

    private final Tiers tiers;

    private final QueueClock clock;

    private final WakeSignal wake;

    private final Completer completer;

    private final WorkerPool pool;

    private final Dispatcher dispatcher;

    private final Map<Runnable, Duration> jobs = new HashMap<>();

    private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

    private volatile boolean running;

    public DelayQueueEngine(EngineSettings settings, TaskStore store, @Nullable Indexer indexer,
            HandlerRegistry registry, PayloadCodec codec, RetryPolicy retryPolicy, Tiers tiers, QueueClock clock,
            WakeSignal wake, TaskEvents events, HandlerInvoker invoker) {
        this.settings = settings;
        this.store = store;
        this.indexer = indexer;
        this.tiers = tiers;
        this.clock = clock;
        this.wake = wake;
        Claims claims = new Claims(settings.instanceId(), settings.lease());
        this.completer = new Completer(store, settings.instanceId(), clock, indexer, wake);
        TaskRunner runner = new TaskRunner(registry, codec, retryPolicy, tiers, clock, events, settings.instanceId(),
                invoker);
        this.pool = new WorkerPool(settings.threads(), settings.prefetch(), settings.lease(), registry, runner,
                completer, clock);
        completer.onWritten(pool::forget);
        long claimAhead = settings.claimAhead().toMillis();
        TaskSource source = indexer == null
                ? new DatabaseTaskSource(store, claims, settings.pollInterval().toMillis(), claimAhead)
                : new IndexTaskSource(indexer, store, claims, events, settings.maxWait().toMillis(),
                        settings.sweepGrace().toMillis(), settings.sweepInterval().toMillis(),
                        settings.pollInterval().toMillis(), claimAhead);
        this.dispatcher = new Dispatcher(source, pool, wake, clock, settings.batchSize(), store, claims);
        jobs.put(new LeaseKeeper(store, pool, claims, clock), settings.lease().dividedBy(3));
        jobs.put(new LeaseRecovery(store, registry, retryPolicy, tiers, clock, indexer, wake, events),
                settings.recoveryInterval());
        if (!settings.retention().isEmpty()) {
            jobs.put(new Retention(store, settings.retention(), settings.retentionBatchSize(), clock),
                    settings.retentionInterval());
        }
        if (indexer != null) {
            jobs.put(new Migrator(store, indexer, tiers, clock, settings.migrationBatchSize(), wake, events),
                    settings.migrationInterval());
            jobs.put(new IndexRepair(indexer, store, wake), Duration.ofSeconds(1));
        }
        // a thread per job: lease renewal must keep its pace while a migration or recovery waits on the database
        scheduler.setPoolSize(jobs.size());
        scheduler.setThreadNamePrefix("delay-scheduler-");
        scheduler.setDaemon(true);
    }

    @Override
    public void start() {
        scheduler.initialize();
        completer.start();
        if (indexer != null) {
            try {
                indexer.index().subscribe(wake::dueAt);
            }
            catch (RuntimeException ex) {
                log.warn("Could not subscribe to wake-ups ({}); consumers wake at least every {} until it is "
                        + "retried, every second once Redis answers", ex.toString(), settings.maxWait());
            }
        }
        dispatcher.start();
        jobs.forEach((job, interval) -> scheduler.scheduleWithFixedDelay(job, interval));
        running = true;
        log.info("Delay queue engine started: instance {}, {} worker thread(s), {} mode", settings.instanceId(),
                settings.threads(), indexer == null ? "jdbc" : "hybrid");
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        try {
            if (indexer != null) {
                indexer.index().unsubscribe();
            }
            dispatcher.stop();
            handBack(pool.releaseUnstarted());
            long timeout = settings.shutdownTimeout().toMillis();
            boolean finished = pool.awaitRunning(timeout);
            if (!finished) {
                log.warn("Handlers still running after delay.worker.shutdown-timeout ({}); their tasks stay RUNNING "
                        + "until their lease ends, then run again", settings.shutdownTimeout());
            }
            completer.stop(Math.max(5_000, timeout));
            if (!finished) {
                pool.interruptRunning();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            scheduler.shutdown();
        }
        log.info("Delay queue engine stopped: instance {}", settings.instanceId());
    }

    /** Claimed tasks that never started go back to pending, attempt uncounted, so others take them at once. */
    private void handBack(List<ClaimedTask> unstarted) {
        if (unstarted.isEmpty()) {
            return;
        }
        long now = clock.now();
        Map<Long, TaskStatus> statuses = new HashMap<>();
        List<DueTask> queued = new java.util.ArrayList<>();
        for (ClaimedTask task : unstarted) {
            TaskStatus status = tiers.statusFor(task.dueAt(), now);
            statuses.put(task.id(), status);
            if (status == TaskStatus.QUEUED) {
                queued.add(new DueTask(task.id(), task.dueAt()));
            }
        }
        try {
            store.release(settings.instanceId(), statuses, now);
            if (indexer != null) {
                indexer.add(queued);
            }
            log.info("Handed back {} claimed task(s) that had not started", unstarted.size());
        }
        catch (RuntimeException ex) {
            log.warn("Could not hand back {} claimed task(s) ({}); they run again when their lease ends",
                    unstarted.size(), ex.toString());
        }
    }

    /** Stops every thread at once, writing nothing back: what a crash does. For fault tests. */
    void halt() {
        running = false;
        dispatcher.halt();
        pool.halt();
        completer.halt();
        scheduler.getScheduledExecutor().shutdownNow();
        if (indexer != null) {
            indexer.index().unsubscribe();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        // Start before and stop after the web server, so requests in flight can still schedule tasks.
        return SmartLifecycle.DEFAULT_PHASE - 4096;
    }

    public String instanceId() {
        return settings.instanceId();
    }

    /** Tasks this instance holds right now: claimed, running, or finished with the result not yet written. */
    public int heldTasks() {
        return pool.heldCount();
    }

    public int capacity() {
        return pool.capacity();
    }
}
