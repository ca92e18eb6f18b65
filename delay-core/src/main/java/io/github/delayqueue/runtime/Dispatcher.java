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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * The consumer loop, in rounds on the engine's scheduler ({@link PeriodicJob}): a round claims as many due tasks from
 * the {@link TaskSource} as the {@link WorkerPool} has free slots and hands them over; the next round comes at once
 * when its claim filled the free slots (more may be due), when a slot frees up if none was free, and otherwise at the
 * source's next time or an earlier time announced on the {@link WakeSignal}, which brings the round forward the moment
 * it is announced. A claim that took fewer waits for the source too: in a steady stream, going round at once would
 * claim the few tasks that came due meanwhile, a commit for each few tasks. No thread waits in between. A failing
 * database or index fails the round: its job logs it, backs off (never more than half a second, so the loop sees the
 * database back within about a second) and tries again, deaf to wake-ups meanwhile; the loop dies of nothing. After a
 * stop it can be started again; a round of an earlier start that is still finishing its claim hands that claim back.
 * <p>
 * A claim takes only the types the instance can start now ({@link ClaimableTypes}); what it brings of a type beyond
 * that type's room goes back at once, and a type at its limit that gets room again brings the next round forward,
 * so a type whose backlog waits for its {@code concurrency} neither holds slots another type could use nor waits
 * for a round.
 */
final class Dispatcher {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    /** How long stopping waits for a claim in flight; the claim hands its tasks back itself if it returns later. */
    private static final long STOP_WAIT_MILLIS = 2_000;

    /** How long a busy loop waits for a fuller claim: a claim costs one commit whatever its size. */
    private static final long LINGER_NANOS = 2_000_000;

    /** While no slot is free, how often a round looks anyway: the pool's limit moves with the handlers' durations. */
    private static final long SLOT_RECHECK_NANOS = 50_000_000;

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

    /** Takes claims the loop made but can no longer run (it was stopped meanwhile) and hands them back. */
    private final Consumer<List<ClaimedTask>> handBack;

    private final ClaimableTypes claimable;

    /** Takes what a claim brought of a type beyond its room, and hands it back. */
    private final Consumer<List<ClaimedTask>> beyondRoom;

    private volatile boolean running;

    /** Which start the rounds belong to: a round of an earlier start hands back what it claims. */
    private volatile int generation;

    /** What the loop waits for between two rounds. */
    private enum Waiting {

        /** A time: the source's next, or an announced due time. */
        TIME,

        /** A free slot in the pool. */
        SLOT,

        /** {@link #wanted} free slots, for a fuller claim, for a moment. */
        FULLER
    }

    private volatile Waiting waiting = Waiting.TIME;

    /** How many free slots a fuller claim waits for, while {@link #waiting} is {@link Waiting#FULLER}. */
    private volatile int wanted;

    /** How long until the next round, in nanoseconds: set by each round for {@link PeriodicJob#nextDelay}. */
    private long nextRoundIn;

    private final Duration longestSleep;

    private final TaskEvents events;

    private volatile @Nullable PeriodicJob rounds;

    Dispatcher(TaskSource source, WorkerPool pool, HeldTasks held, WakeSignal wake, QueueClock clock, int batchSize,
            TaskStore store, ClaimTerms terms, Consumer<List<ClaimedTask>> handBack, ClaimableTypes claimable,
            Consumer<List<ClaimedTask>> beyondRoom, TaskEvents events, Duration longestSleep) {
        this.longestSleep = longestSleep;
        this.handBack = handBack;
        this.claimable = claimable;
        this.beyondRoom = beyondRoom;
        this.events = events;
        this.store = store;
        this.terms = terms;
        this.source = source;
        this.pool = pool;
        this.held = held;
        this.wake = wake;
        this.clock = clock;
        this.batchSize = batchSize;
        wake.onAnnounced(this::announced);
        pool.onFreed(this::freed);
        pool.lanes().onRoomFreed(this::roomFreed);
        claimable.onClaimableAgain(this::roomFreed);
    }

    synchronized void start(TaskScheduler scheduler) {
        generation++;
        running = true;
        waiting = Waiting.TIME;
        PeriodicJob job = rounds;
        if (job == null) {
            job = new PeriodicJob(scheduler, "dispatcher", longestSleep, events, IoLanes.Waits.DATABASE_OR_REDIS) {
                @Override
                void runOnce() {
                    round(generation);
                }

                @Override
                Duration nextDelay() {
                    return Duration.ofNanos(nextRoundIn);
                }
            };
            rounds = job;
        }
        nextRoundIn = 0;
        job.start();
    }

    /** Whether rounds of start number {@code generation} should go on. */
    private boolean current(int generation) {
        return running && generation == this.generation;
    }

    Liveness liveness() {
        PeriodicJob job = rounds;
        return job != null ? job.liveness() : new Liveness("dispatcher", longestSleep);
    }

    /** A due time was announced: the round waiting for a time comes then, if that is sooner. */
    private void announced(long dueAt) {
        PeriodicJob job = rounds;
        if (job != null && waiting == Waiting.TIME) {
            job.runWithin(dueAt == Long.MIN_VALUE ? 0 : (dueAt * 1_000 - clock.nowMicros()) * 1_000);
        }
    }

    /** Slots may have come free: the round waiting for them comes at once. */
    private void freed() {
        Waiting now = waiting;
        if (now == Waiting.TIME) {
            return; // the common case, on every handler's return: nothing to do
        }
        PeriodicJob job = rounds;
        if (job != null && (now == Waiting.SLOT || pool.free() >= wanted)) {
            job.runWithin(0);
        }
    }

    /** A type at its limit has room again, or a paused one was resumed: a round waiting for a time claims it now. */
    private void roomFreed() {
        PeriodicJob job = rounds;
        if (job != null && waiting == Waiting.TIME) {
            job.runWithin(0);
        }
    }

    private void round(int generation) {
        nextRoundIn = 0;
        if (!current(generation)) {
            return;
        }
        wake.look(); // what was announced until now, this round finds
        boolean lingered = waiting == Waiting.FULLER;
        waiting = Waiting.SLOT; // before looking, so a slot freed meanwhile calls the next round
        int free = pool.free();
        if (free <= 0) {
            nextRoundIn = SLOT_RECHECK_NANOS;
            return;
        }
        int fuller = Math.min(batchSize, pool.capacity()) / 2;
        if (free < fuller && !lingered) {
            wanted = fuller;
            waiting = Waiting.FULLER;
            if (pool.free() < fuller) {
                nextRoundIn = LINGER_NANOS;
                return;
            }
        }
        waiting = Waiting.TIME;
        // no more than the claimable types have room for (at least 1: with none, the source claims nothing)
        free = Math.min(Math.min(Math.max(free, pool.free()), batchSize), Math.max(1, claimable.room()));
        long now = clock.now();
        FetchResult result;
        try {
            if (adoptOrphans) {
                free -= adoptOrphans(free, now);
                if (free == 0) {
                    return;
                }
            }
            result = source.fetch(now, free);
        }
        catch (RuntimeException ex) {
            adoptOrphans = true;
            throw ex; // the job logs it and backs off, deaf to wake-ups: a failing claim must not go round hot
        }
        if (!current(generation)) {
            handBack.accept(result.tasks()); // stopped while this claim was on its way
            return;
        }
        if (!result.tasks().isEmpty()) {
            List<ClaimedTask> beyond = new ArrayList<>();
            List<ClaimedTask> fits = claimable.fitting(result.tasks(), beyond);
            beyondRoom.accept(beyond);
            handBack.accept(pool.submit(fits, terms.at(now).until()));
            if (result.tasks().size() >= free) {
                return; // a full claim: more may be due, so the next round comes at once
            }
        }
        long wakeAt = Math.min(Math.min(result.nextAt(), wake.next()), claimable.nextRecheck());
        nextRoundIn = Math.max(0, (wakeAt * 1_000 - clock.nowMicros()) * 1_000);
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
     * Stops claiming and waits a moment for the round under way to finish its claim; a claim still on its way after
     * that hands its tasks back itself when it returns.
     */
    void stop() throws InterruptedException {
        PeriodicJob job;
        synchronized (this) {
            running = false;
            job = rounds;
        }
        if (job != null) {
            job.stop();
            job.awaitRound(STOP_WAIT_MILLIS);
        }
    }

    /** Stops the loop at once: what a crash does. For fault tests. */
    void halt() {
        running = false;
        PeriodicJob job = rounds;
        if (job != null) {
            job.halt();
        }
    }
}
