package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.runtime.HeldTasks.Held;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import org.jspecify.annotations.Nullable;
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
 * to run ({@link #shedWhileStuck}). A handler that runs over its timeout is interrupted, and one that ignores the
 * interrupt keeps its thread, and the slots it holds, until it returns ({@link HandlerTimeouts}).
 * <p>
 * Handlers run on the executor it is given, never more than {@code threads} at once: the pool queues what waits for a
 * thread itself, so any executor works, a thread per task (virtual threads) included; one that rejects a hand-off (a
 * bounded queue) is tried again shortly. Timers (claimed-ahead starts, the lease guard) run on the engine's
 * {@link TaskScheduler}, where the rounds that wait on the database always leave them a thread ({@link IoLanes}).
 * <p>
 * Stopping ({@link #releaseUnstarted}) takes no more tasks and releases every one not started; those still on a timer,
 * in a type's lane or waiting for a thread pass through {@link #run} all the same and end there without starting,
 * so every slot they held is given back and a later {@link #start} works like the first. The lease guard goes on
 * until {@link #stopGuard}, after the last handler has ended.
 */
final class WorkerPool {

    private static final Logger log = LoggerFactory.getLogger(WorkerPool.class);

    /** How long to wait before handing tasks to an executor that rejected them. */
    private static final long REJECTED_RETRY_MILLIS = 50;

    /** How often the pool looks whether every thread is stuck in a long handler. */
    private static final long SHED_CHECK_MILLIS = 5;

    /** A handler running this long, or 8 times the median, whichever is longer, holds its thread for long. */
    private static final long STUCK_FLOOR_NANOS = 10_000_000;

    private final Executor executor;

    private final HoldLimit holdLimit;

    /** Starts tasks claimed ahead of their due time when they fall due, and runs the lease guard. */
    private final TaskScheduler timer;

    /** The lease guard, from start until the drain ends. */
    private final PeriodicJob guard;

    /** The stuck check, from start until the pool stops taking tasks. */
    private final PeriodicJob shedCheck;

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

    private final HandlerTimeouts timeouts;

    private volatile boolean stopping;

    private final FailureStreak rejections = new FailureStreak(log, "Handing tasks to the handler executor (it "
            + "rejected them: give it at least delay.worker.threads threads and an unbounded queue)");


    WorkerPool(int threads, int prefetch, HeldTasks held, HandlerRegistry registry, TaskRunner runner,
            ResultWriter resultWriter, QueueClock clock, TaskScheduler timer, Executor executor,
            @Nullable Duration handlerTimeout) {
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
        this.guard = PeriodicJob.timer(timer, "lease guard", Duration.ofMillis(held.guardIntervalMillis()),
                held::guardLeases);
        this.shedCheck = PeriodicJob.timer(timer, "stuck-thread check", Duration.ofMillis(SHED_CHECK_MILLIS),
                this::shedWhileStuck);
        this.timeouts = new HandlerTimeouts(registry, handlerTimeout, held, runner, resultWriter, timer);
    }

    /**
     * Starts taking tasks, the lease guard, the timeout check and the stuck check: timers on the scheduler, which never
     * wait on the database, and survive whatever they throw ({@link PeriodicJob}).
     */
    synchronized void start() {
        stopping = false;
        guard.start();
        timeouts.start();
        shedCheck.start();
        startWaiting(); // anything a rejection left waiting
    }

    /** Each type's share of the pool, and how many more of a type may be claimed. */
    TypeLanes lanes() {
        return lanes;
    }

    /** How many tasks the pool may hold right now. */
    int capacity() {
        return holdLimit.limit();
    }

    /** How many more tasks the pool may take now; 0 or less when none. */
    int free() {
        return holdLimit.free();
    }

    /** Tells {@code listener} whenever tasks may have been freed: the dispatcher's next round waits for that. */
    void onFreed(Runnable listener) {
        holdLimit.onFreed(listener);
    }

    /**
     * Takes tasks the dispatcher has just claimed; it never claims more than {@link #free} reported.
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
            lanes.held(task.type());
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
        Held runNow = lanes.offer(entry); // released meanwhile, it still passes through run() to give back its slots
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
        while (!waiting.isEmpty() && freeThreads.tryAcquire()) {
            try {
                executor.execute(this::runWaiting);
                rejections.succeeded();
            }
            catch (RejectedExecutionException ex) {
                freeThreads.release();
                retryRejected(ex);
                return;
            }
        }
    }

    /**
     * The executor took no task: it is shutting down with the context, or it has a bounded queue or fewer threads than
     * {@code delay.worker.threads}. The tasks stay waiting, held and renewed, so try again shortly rather than leave
     * them until another task happens to arrive.
     */
    private void retryRejected(RejectedExecutionException ex) {
        rejections.failed(ex);
        try {
            timer.schedule(this::startWaiting, timer.getClock().instant().plusMillis(REJECTED_RETRY_MILLIS));
        }
        catch (RejectedExecutionException shutDown) {
            // the context is closing: unstarted tasks are handed back, or left to their lease
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
            while ((next = waiting.poll()) != null) {
                run(next); // one released at a stop does not start, and gives back its slots
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
                if (!recordStart(entry)) {
                    return;
                }
                long started = System.nanoTime();
                entry.runOn(Thread.currentThread(), started);
                timeouts.started(entry, started);
                @Nullable Completion completion;
                try {
                    completion = runner.run(entry.task, entry);
                }
                finally {
                    entry.runOn(null, 0);
                    entry.finish();
                    durations.record(System.nanoTime() - started);
                    Thread.interrupted(); // an interrupt meant for this handler must not reach the next one
                }
                if (completion != null) {
                    resultWriter.submit(completion);
                }
                else { // it ran over its timeout and ignored the interrupt: the timeout check wrote its failure
                    held.returnedAfterFailure(entry);
                }
            }
        }
        catch (RuntimeException | Error ex) {
            // TaskRunner never throws; should it, the thread must live and the claim must end
            log.error("Running task {} failed unexpectedly; its lease runs out and it runs again",
                    entry.task.id(), ex);
        }
        finally {
            lanes.done(entry.task.type());
            holdLimit.release();
            Held next = lanes.next(entry.task.type());
            if (next != null) {
                execute(next);
            }
        }
    }

    /**
     * Counts the attempt as the handler starts: batched by the result writer, or written at once for a task an
     * earlier claim of which never recorded its start (handed back, or taken back from an instance that died before
     * its start was written). Without that, a task that kills its instance within the batch's few milliseconds would
     * go back uncounted every time and could take down every instance in turn. A start that cannot be written gives
     * the task up (it goes back once the database answers).
     */
    private boolean recordStart(Held entry) {
        ClaimedTask task = entry.task;
        if (task.claim() <= task.attempt()) { // every earlier claim counted its attempt
            resultWriter.started(task.claimId());
            return true;
        }
        if (resultWriter.startNow(task.claimId())) {
            return true;
        }
        held.giveUp(entry);
        log.warn("Did not start task {}: its start could not be recorded (the database did not answer, or the claim "
                + "was lost); it goes back", task.id());
        return false;
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
     * database; running handlers go on, and so does the lease guard, which interrupts one whose lease is about to end
     * while the database cannot renew it ({@link #stopGuard} ends it).
     */
    synchronized List<ClaimedTask> releaseUnstarted() {
        stopping = true;
        shedCheck.stop();
        return held.releaseUnstarted();
    }

    /**
     * Ends the lease guard and the timeout check: once the last handler has ended, or been interrupted at the
     * shutdown timeout.
     */
    synchronized void stopGuard() {
        guard.stop();
        timeouts.stop();
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
    synchronized void halt() {
        stopping = true;
        shedCheck.stop();
        stopGuard();
        waiting.clear();
        held.abandonUnstarted();
        held.interruptRunning();
    }
}
