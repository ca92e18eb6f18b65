package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded pool claimed tasks run on. The dispatcher claims only as many tasks as the {@link HoldLimit} allows; a
 * task stops counting against it when its handler returns. A task claimed ahead of its due time waits on a timer and
 * starts when it falls due, and each type runs at most its handler's {@code concurrency} at once (the rest wait here,
 * claimed, with their lease kept). The pool remembers every claim it holds until its result is written, so leases can
 * be renewed and unstarted tasks handed back at shutdown, and it watches those leases: a task whose lease is lost or
 * about to end is never started, and a running handler whose lease is lost is interrupted (see {@link #guardLeases},
 * {@link #leasesLost}). When every thread is held by a handler that runs far longer than usual, the tasks waiting for a
 * thread are handed back at once for other instances to run ({@link #shedWhileStuck}).
 */
final class WorkerPool {

    private static final Logger log = LoggerFactory.getLogger(WorkerPool.class);

    /** Claimed, not started. */
    private static final int WAITING = 0;

    /** The handler runs. */
    private static final int RUNNING = 1;

    /** The handler returned; its result is not written yet. */
    private static final int FINISHED = 2;

    /** Given up before it started: handed back, or left to lease recovery. */
    private static final int RELEASED = 3;

    private final ThreadPoolExecutor executor;

    private final HoldLimit holdLimit;

    /** Starts tasks claimed ahead of their due time when they fall due, and runs the lease guard. */
    private final ScheduledThreadPoolExecutor timer;

    private final QueueClock clock;

    private final long leaseMillis;

    private final Map<ClaimId, Held> held = new ConcurrentHashMap<>();

    /** Claims given up because their lease could not be renewed in time, to hand back once the database answers. */
    private final ConcurrentLinkedQueue<ClaimedTask> givenUp = new ConcurrentLinkedQueue<>();

    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    /** Tasks handed to the executor and not started yet: what waits for a thread. */
    private final Set<Held> ready = ConcurrentHashMap.newKeySet();

    private final HandlerDurations durations = new HandlerDurations();

    private final int threads;

    private final HandlerRegistry registry;

    private final TaskRunner runner;

    private final ResultWriter resultWriter;

    private volatile boolean stopping;

    WorkerPool(int threads, int prefetch, Duration lease, HandlerRegistry registry, TaskRunner runner,
            ResultWriter resultWriter, QueueClock clock) {
        this.holdLimit = new HoldLimit(threads, prefetch, durations);
        this.threads = threads;
        this.clock = clock;
        this.leaseMillis = lease.toMillis();
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "delay-timer");
            thread.setDaemon(true);
            return thread;
        });
        this.timer.setRemoveOnCancelPolicy(true);
        this.registry = registry;
        this.runner = runner;
        this.resultWriter = resultWriter;
        AtomicInteger count = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "delay-worker-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        // on the timer, which never waits on the database: the guard must run while the database hangs
        long guardMillis = Math.max(50, leaseMillis / 10);
        this.timer.scheduleWithFixedDelay(this::guardLeases, guardMillis, guardMillis, TimeUnit.MILLISECONDS);
        this.timer.scheduleWithFixedDelay(this::shedWhileStuck, SHED_CHECK_MILLIS, SHED_CHECK_MILLIS,
                TimeUnit.MILLISECONDS);
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
            Held entry = new Held(task, leaseUntil);
            held.put(task.claimId(), entry);
            long wait = task.dueAt() * 1_000 - now;
            if (wait > 0) {
                try {
                    timer.schedule(() -> offer(entry), wait, TimeUnit.MICROSECONDS);
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
        Held runNow = lane(entry.task.type()).offer(entry);
        if (runNow != null) {
            execute(runNow);
        }
    }

    private Lane lane(String type) {
        return lanes.computeIfAbsent(type, t -> {
            TaskHandler handler = registry.find(t);
            int limit = handler == null || handler.settings().concurrency() <= 0 ? Integer.MAX_VALUE
                    : handler.settings().concurrency();
            return new Lane(limit);
        });
    }

    private void execute(Held entry) {
        ready.add(entry);
        try {
            executor.execute(() -> run(entry));
        }
        catch (RejectedExecutionException ex) {
            // Shutting down: the task stays WAITING and is handed back by releaseUnstarted.
            ready.remove(entry);
        }
    }

    private void run(Held entry) {
        ready.remove(entry);
        try {
            if (entry.state.compareAndSet(WAITING, RUNNING)) {
                if (leaseEndsSoon(entry, clock.now())) {
                    // The claim's answer came late, or this process stalled: another instance may take the task
                    // any moment now, so it must not start here.
                    entry.state.set(RELEASED);
                    givenUp.add(entry.task);
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
                    entry.state.set(FINISHED);
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
            Held next = lane(entry.task.type()).next();
            if (next != null) {
                execute(next);
            }
        }
    }

    /** Renewals keep every lease at least two thirds of a lease ahead; a third or less left means they failed. */
    private boolean leaseEndsSoon(Held entry, long now) {
        return entry.leaseUntil - now <= leaseMillis / 3;
    }

    /** Every claim held, from claim until its result is written, and not given up: the leases to renew. */
    List<ClaimId> heldClaims() {
        List<ClaimId> claims = new ArrayList<>(held.size());
        held.forEach((claim, entry) -> {
            if (entry.state.get() != RELEASED) {
                claims.add(claim);
            }
        });
        return claims;
    }

    /** Records that the leases of {@code renewed} were renewed to end at {@code leaseUntil}. */
    void leasesRenewed(Set<ClaimId> renewed, long leaseUntil) {
        for (ClaimId claim : renewed) {
            Held entry = held.get(claim);
            if (entry != null) {
                entry.leaseUntil = Math.max(entry.leaseUntil, leaseUntil);
            }
        }
    }

    /**
     * The database no longer holds these claims: another instance took the tasks after their lease ran out (this
     * process stalled, or its clock ran behind), or they were written meanwhile. At once, a task not started is
     * dropped and a running handler interrupted, so the two runs overlap no longer than they must.
     */
    void leasesLost(Collection<ClaimId> lost) {
        List<Long> dropped = new ArrayList<>();
        List<Long> interrupted = new ArrayList<>();
        for (ClaimId claim : lost) {
            Held entry = held.get(claim);
            if (entry == null) {
                continue; // its result was written meanwhile
            }
            if (entry.state.compareAndSet(WAITING, RELEASED)) {
                held.remove(claim);
                dropped.add(claim.id());
            }
            else if (entry.interrupt()) {
                interrupted.add(claim.id());
            }
        }
        if (!dropped.isEmpty() || !interrupted.isEmpty()) {
            log.warn("Lost the claim of {} task(s) to another instance (this instance stalled or could not renew "
                    + "their lease in time): dropped unstarted {}, interrupted the handler(s) of {}",
                    dropped.size() + interrupted.size(), dropped, interrupted);
        }
    }

    /**
     * A lease with a third or less left has missed its renewals: the database is out of reach, or this process
     * stalled, and once the lease ends another instance may take the task. So that a task never runs in two places
     * at once, the pool first gives up an unstarted task (it is not renewed any more; it is handed back once the
     * database answers, or lease recovery hands it out again) and interrupts a running handler. A task given up
     * stays known here for one more lease, so this instance does not take it back as an orphan of a lost claim answer.
     */
    void guardLeases() {
        long now = clock.now();
        int gaveUp = 0;
        List<Long> interrupted = new ArrayList<>();
        for (Held entry : held.values()) {
            if (!leaseEndsSoon(entry, now)) {
                continue;
            }
            if (entry.state.compareAndSet(WAITING, RELEASED)) {
                givenUp.add(entry.task);
                gaveUp++;
            }
            else if (entry.interrupt()) {
                interrupted.add(entry.task.id());
            }
            else if (entry.state.get() == RELEASED && entry.leaseUntil + leaseMillis < now) {
                held.remove(entry.task.claimId());
            }
        }
        if (gaveUp > 0 || !interrupted.isEmpty()) {
            log.warn("Could not renew task leases in time (is the database reachable? did this instance stall?): "
                    + "gave up {} unstarted task(s) and interrupted the handler(s) of {}, so that no other instance "
                    + "runs them while they run here", gaveUp, interrupted);
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
        int stuck = 0;
        for (Held entry : held.values()) {
            long since = entry.runningSince();
            if (since != 0 && now - since > stuckAfter) {
                stuck++;
            }
        }
        boolean allStuck = stuck >= threads;
        holdLimit.threadsStuck(allStuck);
        if (!allStuck || ready.isEmpty()) {
            return;
        }
        List<ClaimedTask> shed = new ArrayList<>();
        for (Held entry : ready) {
            if (entry.state.compareAndSet(WAITING, RELEASED)) {
                shed.add(entry.task);
            }
        }
        if (!shed.isEmpty()) {
            resultWriter.handBack(shed);
            log.debug("Every thread runs a long handler: handed back {} waiting task(s) for other instances",
                    shed.size());
        }
    }

    /** Claims given up since the last call, never started: to hand back, uncounted. */
    List<ClaimedTask> takeGivenUp() {
        List<ClaimedTask> taken = new ArrayList<>();
        ClaimedTask next;
        while ((next = givenUp.poll()) != null) {
            taken.add(next);
        }
        return taken;
    }

    /** Puts back claims whose hand-back failed, for the next try. */
    void keepGivenUp(List<ClaimedTask> tasks) {
        givenUp.addAll(tasks);
    }

    /** Whether a claim of this task is held here: claimed, running, or finished with its result not yet written. */
    boolean holds(long id) {
        for (ClaimId claim : held.keySet()) {
            if (claim.id() == id) {
                return true;
            }
        }
        return false;
    }

    /** How many tasks are held (claimed and not yet written). */
    int heldCount() {
        return heldClaims().size();
    }

    /** Forgets claims whose results are written. */
    void forget(List<ClaimId> claims) {
        claims.forEach(held::remove);
    }

    /**
     * Stops starting tasks: every task not started yet is marked released and returned, to be handed back to the
     * database; running handlers go on.
     */
    synchronized List<ClaimedTask> releaseUnstarted() {
        stopping = true;
        timer.shutdownNow();
        executor.shutdown();
        List<ClaimedTask> released = new ArrayList<>(takeGivenUp());
        for (Held entry : held.values()) {
            if (entry.state.compareAndSet(WAITING, RELEASED)) {
                released.add(entry.task);
            }
        }
        forget(released.stream().map(ClaimedTask::claimId).toList());
        return released;
    }

    /** Waits up to {@code timeoutMillis} for running handlers to return; {@code true} when all did. */
    boolean awaitRunning(long timeoutMillis) throws InterruptedException {
        return executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Interrupts handlers still running after the shutdown timeout. */
    void interruptRunning() {
        executor.shutdownNow();
    }

    /** Stops every worker thread at once without handing anything back: what a crash does. For fault tests. */
    void halt() {
        for (Held entry : held.values()) {
            entry.state.compareAndSet(WAITING, RELEASED);
        }
        timer.shutdownNow();
        executor.shutdownNow();
    }

    private static final class Held {

        final ClaimedTask task;

        final AtomicInteger state = new AtomicInteger(WAITING);

        /** When the lease ends at the latest, on the queue clock. */
        volatile long leaseUntil;

        /** The thread running the handler, while it runs; guarded by this. */
        private @Nullable Thread thread;

        /** When the handler started ({@link System#nanoTime()}), 0 while it does not run. */
        private volatile long runningSince;

        /** Set once the handler was interrupted, so it is interrupted once, not at every guard pass. */
        private boolean interrupted;

        Held(ClaimedTask task, long leaseUntil) {
            this.task = task;
            this.leaseUntil = leaseUntil;
        }

        synchronized void runOn(@Nullable Thread thread, long since) {
            this.thread = thread;
            this.runningSince = since;
        }

        long runningSince() {
            return runningSince;
        }

        synchronized boolean wasInterrupted() {
            return interrupted;
        }

        /** Interrupts the handler if it is running and was not interrupted yet. */
        synchronized boolean interrupt() {
            if (thread == null || interrupted) {
                return false;
            }
            interrupted = true;
            thread.interrupt();
            return true;
        }
    }

    /** One task type's share of the pool: at most {@code limit} running, the rest queued in claim order. */
    private static final class Lane {

        private final int limit;

        private int running;

        private final ArrayDeque<Held> waiting = new ArrayDeque<>();

        Lane(int limit) {
            this.limit = limit;
        }

        synchronized @Nullable Held offer(Held entry) {
            if (running < limit) {
                running++;
                return entry;
            }
            waiting.add(entry);
            return null;
        }

        synchronized @Nullable Held next() {
            Held next = waiting.poll();
            if (next == null) {
                running--;
            }
            return next;
        }
    }
}
