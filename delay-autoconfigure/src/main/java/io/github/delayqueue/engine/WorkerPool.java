package io.github.delayqueue.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;

import io.github.delayqueue.engine.HeldTasks.Held;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * The bounded pool claimed tasks run on. The dispatcher claims only as many tasks as the {@link HoldLimit} allows; a
 * task stops counting against it when its handler returns. A task claimed ahead of its due time waits on a timer and
 * starts when it falls due, and each type runs at most its handler's {@code concurrency} at once ({@link TypeLanes}).
 * Every claim is in the {@link HeldTasks} ledger until its result is written, so leases are renewed and unstarted
 * tasks handed back at shutdown; the ledger's lease guard runs on the pool's timer. When every thread is held by a
 * handler that runs far longer than usual, the tasks waiting for a thread are handed back at once for other instances
 * to run ({@link #shedWhileStuck}).
 * <p>
 * Handlers run on the executor it is given, never more than {@code threads} at once: the pool queues what waits for a
 * thread itself, so any executor works, a thread per task (virtual threads) included. Timers (claimed-ahead starts,
 * the lease guard) run on the engine's {@link TaskScheduler}, whose threads never wait on the database.
 */
final class WorkerPool {

    private static final Logger log = LoggerFactory.getLogger(WorkerPool.class);

    private final Executor executor;

    private final HoldLimit holdLimit;

    /** Starts tasks claimed ahead of their due time when they fall due, and runs the lease guard. */
    private final TaskScheduler timer;

    /** The guard and the stuck check, cancelled when the pool stops. */
    private final List<ScheduledFuture<?>> checks = new ArrayList<>();

    /** One permit per thread: a task goes to the executor only with one, so at most {@code threads} run at once. */
    private final Semaphore freeThreads;

    /** Tasks due to run, waiting for a thread, in the order they became due. */
    private final Queue<Held> waiting = new ConcurrentLinkedQueue<>();

    /** Signalled whenever a handler thread gives its permit back, for {@link #awaitRunning}. */
    private final Object runEnded = new Object();

    private final QueueClock clock;

    private final HeldTasks held;

    private final TypeLanes lanes;

    /** Tasks due to run and not started yet: what waits for a thread. */
    private final Set<Held> ready = ConcurrentHashMap.newKeySet();

    private final HandlerDurations durations = new HandlerDurations();

    private final int threads;

    private final TaskRunner runner;

    private final ResultWriter resultWriter;

    private volatile boolean stopping;

    WorkerPool(int threads, int prefetch, HeldTasks held, HandlerRegistry registry, TaskRunner runner,
            ResultWriter resultWriter, QueueClock clock, TaskScheduler timer, Executor executor) {
        this.holdLimit = new HoldLimit(threads, prefetch, durations);
        this.threads = threads;
        this.freeThreads = new Semaphore(threads);
        this.clock = clock;
        this.held = held;
        this.timer = timer;
        this.executor = executor;
        this.lanes = new TypeLanes(registry);
        this.runner = runner;
        this.resultWriter = resultWriter;
    }

    /** Starts the lease guard and the stuck check: on the timer, which never waits on the database. */
    void start() {
        Instant first = timer.getClock().instant();
        checks.add(timer.scheduleWithFixedDelay(held::guardLeases, first.plusMillis(held.guardIntervalMillis()),
                Duration.ofMillis(held.guardIntervalMillis())));
        checks.add(timer.scheduleWithFixedDelay(this::shedWhileStuck, first.plusMillis(SHED_CHECK_MILLIS),
                Duration.ofMillis(SHED_CHECK_MILLIS)));
    }

    /** How often the pool looks whether every thread is stuck in a long handler. */
    private static final long SHED_CHECK_MILLIS = 5;

    /** A handler running this long, or 8 times the median, whichever is longer, holds its thread for long. */
    private static final long STUCK_FLOOR_NANOS = 10_000_000;

    /** How many tasks the pool may hold right now. */
    int capacity() {
        return holdLimit.limit();
    }

    /** See {@link HoldLimit#awaitFree}. */
    int awaitFree(long timeoutMillis, int wanted, long lingerMillis) throws InterruptedException {
        return holdLimit.awaitFree(timeoutMillis, wanted, lingerMillis);
    }

    /**
     * Takes tasks the dispatcher has just claimed; it never claims more than {@link #awaitFree} reported.
     * {@code leaseUntil} is when their lease ends on the queue clock, at the latest. Returns the tasks it could not
     * take because it is stopping (none otherwise), for the caller to hand back.
     */
    synchronized List<ClaimedTask> submit(List<ClaimedTask> tasks, long leaseUntil) {
        if (stopping) {
            return tasks;
        }
        holdLimit.take(tasks.size());
        long now = clock.nowMicros();
        for (ClaimedTask task : tasks) {
            Held entry = held.add(task, leaseUntil);
            long wait = task.dueAt() * 1_000 - now;
            if (wait > 0) {
                try {
                    timer.schedule(() -> offer(entry), timer.getClock().instant().plusNanos(wait * 1_000));
                }
                catch (RejectedExecutionException ex) {
                    // shutting down: the task stays WAITING and is handed back
                }
            }
            else {
                offer(entry);
            }
        }
        return List.of();
    }

    private void offer(Held entry) {
        if (stopping) {
            return; // released with the rest of the unstarted tasks
        }
        Held runNow = lanes.offer(entry);
        if (runNow != null) {
            execute(runNow);
        }
    }

    private void execute(Held entry) {
        ready.add(entry);
        waiting.add(entry);
        startWaiting();
    }

    /** Starts a handler thread for waiting tasks while fewer than {@code threads} run. */
    private void startWaiting() {
        while (!stopping && !waiting.isEmpty() && freeThreads.tryAcquire()) {
            try {
                executor.execute(this::runWaiting);
            }
            catch (RejectedExecutionException ex) {
                // Shutting down: the tasks stay WAITING and are handed back by releaseUnstarted.
                freeThreads.release();
                return;
            }
        }
    }

    /**
     * On a handler thread, holding one of the {@code threads} permits: runs waiting tasks one after the other until
     * none is left, as a pool's worker takes the next task from its queue, so a busy pool hands no task from thread
     * to thread.
     */
    private void runWaiting() {
        try {
            Held next;
            while (!stopping && (next = waiting.poll()) != null) {
                run(next);
            }
        }
        finally {
            freeThreads.release();
            synchronized (runEnded) {
                runEnded.notifyAll();
            }
            startWaiting(); // a task queued after the last look, while this thread still held its permit
        }
    }

    private void run(Held entry) {
        ready.remove(entry);
        try {
            if (entry.start()) {
                if (held.leaseEndsSoon(entry, clock.now())) {
                    // The claim's answer came late, or this process stalled: another instance may take the task
                    // any moment now, so it must not start here.
                    held.giveUp(entry);
                    log.warn("Did not start task {}: its lease ends in {} ms (the claim answered late or this "
                            + "instance stalled); it goes back", entry.task.id(), entry.leaseUntil - clock.now());
                    return;
                }
                resultWriter.started(entry.task.claimId());
                long started = System.nanoTime();
                entry.runOn(Thread.currentThread(), started);
                Completion completion;
                try {
                    completion = runner.run(entry.task, entry::wasInterrupted);
                }
                finally {
                    entry.runOn(null, 0);
                    entry.finish();
                    durations.record(System.nanoTime() - started);
                    Thread.interrupted(); // an interrupt meant for this handler must not reach the next one
                }
                resultWriter.submit(completion);
            }
        }
        catch (RuntimeException | Error ex) {
            // TaskRunner never throws; should it, the thread must live and the claim must end
            log.error("Running task {} failed unexpectedly; its lease runs out and it runs again",
                    entry.task.id(), ex);
        }
        finally {
            holdLimit.release();
            Held next = lanes.next(entry.task.type());
            if (next != null) {
                execute(next);
            }
        }
    }

    /**
     * While every thread runs a handler that has taken far longer than the usual handler (8 times the median, at
     * least 10 ms), whatever waits here for a thread would wait for one of those: it goes back at once, uncounted, for
     * an instance with free threads, and nothing more is claimed until a thread is free again. Without this, tasks
     * claimed ahead sit behind slow handlers while other instances are idle.
     */
    void shedWhileStuck() {
        long now = System.nanoTime();
        long stuckAfter = Math.max(STUCK_FLOOR_NANOS, 8 * durations.medianNanos());
        boolean allStuck = held.runningLongerThan(stuckAfter, now) >= threads;
        holdLimit.threadsStuck(allStuck);
        if (!allStuck || ready.isEmpty()) {
            return;
        }
        List<ClaimedTask> shed = new ArrayList<>();
        for (Held entry : ready) {
            if (entry.release()) {
                shed.add(entry.task);
            }
        }
        if (!shed.isEmpty()) {
            resultWriter.handBack(shed);
            log.debug("Every thread runs a long handler: handed back {} waiting task(s) for other instances",
                    shed.size());
        }
    }

    /**
     * Stops starting tasks: every task not started yet is marked released and returned, to be handed back to the
     * database; running handlers go on.
     */
    synchronized List<ClaimedTask> releaseUnstarted() {
        stopping = true;
        checks.forEach(check -> check.cancel(false));
        waiting.clear();
        return held.releaseUnstarted();
    }

    /** Waits up to {@code timeoutMillis} for running handlers to return; {@code true} when all did. */
    boolean awaitRunning(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        synchronized (runEnded) {
            while (freeThreads.availablePermits() < threads) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                runEnded.wait(Math.max(1, left / 1_000_000));
            }
        }
        return true;
    }

    /** Interrupts handlers still running after the shutdown timeout. */
    void interruptRunning() {
        held.interruptRunning();
    }

    /** Stops every handler at once without handing anything back: what a crash does. For fault tests. */
    void halt() {
        stopping = true;
        checks.forEach(check -> check.cancel(false));
        waiting.clear();
        held.abandonUnstarted();
        held.interruptRunning();
    }
}
