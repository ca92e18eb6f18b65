package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * The consumer loop, on a thread of the engine's scheduler that it keeps while it runs: wait for a free worker slot,
 * claim that many due tasks from the {@link TaskSource}, hand them to the {@link WorkerPool}; when nothing is due,
 * sleep on the {@link WakeSignal} until the source's next time or an earlier announced due time. A failing database
 * or index is logged, backed off (never more than half a second, so it sees the database back within about a
 * second) and retried; the loop dies of nothing. After a stop it can be started again; a loop of an earlier start
 * that is still finishing its claim hands that claim back and ends.
 */
final class Dispatcher {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    /** How long stopping waits for a claim in flight; the claim hands its tasks back itself if it returns later. */
    private static final long STOP_WAIT_MILLIS = 2_000;

    /** How long a busy loop waits for a fuller claim: a claim costs one commit whatever its size. */
    private static final long LINGER_MILLIS = 2;

    private final TaskSource source;

    private final WorkerPool pool;

    private final HeldTasks held;

    private final WakeSignal wake;

    private final QueueClock clock;

    private final int batchSize;

    private final TaskStore store;

    private final ClaimTerms terms;

    /**
     * Set when a claim failed: its commit may have reached the database while the answer was lost (a killed
     * connection), leaving rows RUNNING under this instance that it does not know it holds.
     */
    private boolean adoptOrphans;

    private final FailureStreak failures = new FailureStreak(log, "Claiming due tasks");

    /** Backs off a loop that keeps failing in an unexpected way, so it cannot turn into a hot logging loop. */
    private final FailureStreak unexpected = new FailureStreak(log, "The dispatcher loop");

    /** Takes claims the loop made but can no longer run (it was stopped meanwhile) and hands them back. */
    private final Consumer<List<ClaimedTask>> handBack;

    private volatile boolean running;

    /** Notified when the loop is stopped, to end a pause after a failed claim. */
    private final Object stopped = new Object();

    /** Which start the running loop belongs to: a loop of an earlier start ends at its next look. */
    private volatile int generation;

    /** The loop, while it runs on a thread of the engine's scheduler. */
    private volatile LoopThread thread = new LoopThread();

    private final Liveness liveness;

    private final TaskEvents events;

    Dispatcher(TaskSource source, WorkerPool pool, HeldTasks held, WakeSignal wake, QueueClock clock, int batchSize,
            TaskStore store, ClaimTerms terms, Consumer<List<ClaimedTask>> handBack, TaskEvents events,
            Duration longestSleep) {
        this.liveness = new Liveness("dispatcher", longestSleep);
        this.handBack = handBack;
        this.events = events;
        this.store = store;
        this.terms = terms;
        this.source = source;
        this.pool = pool;
        this.held = held;
        this.wake = wake;
        this.clock = clock;
        this.batchSize = batchSize;
    }

    synchronized void start(TaskScheduler scheduler) {
        int current = ++generation;
        running = true;
        liveness.alive();
        LoopThread loop = new LoopThread();
        thread = loop;
        loop.start(scheduler, () -> loop(current));
    }

    /** Whether the loop of start number {@code generation} should go on. */
    private boolean current(int generation) {
        return running && generation == this.generation;
    }

    Liveness liveness() {
        return liveness;
    }

    private void loop(int generation) {
        while (current(generation)) {
            try {
                liveness.alive();
                int free = pool.awaitFree(250, Math.min(batchSize, pool.capacity()) / 2, LINGER_MILLIS);
                if (free == 0 || !current(generation)) {
                    continue;
                }
                long now = clock.now();
                FetchResult result;
                try {
                    if (adoptOrphans) {
                        free -= adoptOrphans(free, now);
                        if (free == 0) {
                            continue;
                        }
                    }
                    result = source.fetch(now, Math.min(free, batchSize));
                    failures.succeeded();
                }
                catch (RuntimeException ex) {
                    adoptOrphans = true;
                    failures.failed(ex);
                    events.workFailed(liveness.name());
                    // not on the wake signal: ids put back into the index announce themselves at once, and a
                    // failing claim would go round in a hot loop
                    pauseUnlessStopped(failures.backoffMillis());
                    continue;
                }
                if (!current(generation)) {
                    handBack.accept(result.tasks()); // stopped while this claim was on its way
                    return;
                }
                if (!result.tasks().isEmpty()) {
                    handBack.accept(pool.submit(result.tasks(), terms.at(now).until()));
                }
                else {
                    wake.awaitUntil(result.nextAt());
                }
                unexpected.succeeded();
            }
            catch (InterruptedException ex) {
                if (!current(generation)) {
                    return;
                }
            }
            catch (Throwable ex) {
                unexpected.failed(ex);
                events.workFailed(liveness.name());
                log.error("The dispatcher loop hit an unexpected failure; it goes on", ex);
                pause(unexpected.backoffMillis());
            }
        }
    }

    /** Waits {@code millis}, or until {@link #stop}. */
    private void pauseUnlessStopped(long millis) throws InterruptedException {
        synchronized (stopped) {
            if (running) {
                stopped.wait(Math.max(1, millis));
            }
        }
    }

    private void pause(long millis) {
        try {
            wake.awaitUntil(clock.now() + millis);
        }
        catch (InterruptedException ex) {
            // stopping: the loop condition says so
        }
    }

    /**
     * Runs the tasks this instance won in a claim whose answer it lost, instead of leaving them to wait out their
     * lease. Only this thread claims, and the owner is this process's alone, so every row RUNNING under this owner,
     * never started and not held is such an orphan. Only rows with two thirds of a lease left are taken, and only
     * those whose lease this process then renewed run: a row closer to its end may be in another instance's lease
     * recovery.
     */
    private int adoptOrphans(int free, long now) {
        List<ClaimedTask> orphans = new ArrayList<>();
        for (ClaimedTask task : store.claimedBy(terms.owner(), now + terms.leaseMillis() * 2 / 3)) {
            if (!held.holds(task.id())) {
                orphans.add(task);
            }
        }
        // more than the free slots: take what fits now, look again next time
        adoptOrphans = orphans.size() > free;
        List<ClaimedTask> adopted = orphans.subList(0, Math.min(free, orphans.size()));
        if (!adopted.isEmpty()) {
            log.info("Found {} task(s) this instance claimed in a claim whose answer was lost; running them",
                    adopted.size());
            Lease renewed = terms.at(now);
            Set<ClaimId> extended = store.extendLeases(adopted.stream().map(ClaimedTask::claimId).toList(),
                    renewed.until());
            List<ClaimedTask> kept = adopted.stream().filter(task -> extended.contains(task.claimId())).toList();
            handBack.accept(pool.submit(kept, renewed.until()));
            return kept.size();
        }
        return 0;
    }

    /**
     * Stops claiming and waits a moment for the loop to finish the claim it is in; a claim still on its way after
     * that hands its tasks back itself when it returns.
     */
    void stop() throws InterruptedException {
        LoopThread loop;
        synchronized (this) {
            running = false;
            loop = thread;
        }
        synchronized (stopped) {
            stopped.notifyAll();
        }
        wake.wakeNow();
        loop.join(STOP_WAIT_MILLIS);
    }


    /** Stops the loop at once: what a crash does. For fault tests. */
    void halt() {
        running = false;
        thread.interrupt();
    }
}
