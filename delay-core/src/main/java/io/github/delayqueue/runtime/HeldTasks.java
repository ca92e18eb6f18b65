package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease ledger: every claim this instance holds, from the claim until its result is written, with when its lease
 * ends. The {@link LeaseKeeper} renews what is here, the {@link Dispatcher} tells a claim whose answer it lost from one
 * it holds, and the {@link WorkerPool} hands back what never started. The ledger also watches the leases: a task whose
 * lease is lost or about to end is never started, and a running handler whose lease is lost is interrupted (see
 * {@link #guardLeases}, {@link #leasesLost}).
 */
final class HeldTasks {

    private static final Logger log = LoggerFactory.getLogger(HeldTasks.class);

    /** Where a held task is. */
    enum State {

        /** Claimed, not started. */
        WAITING,

        /** The handler runs. */
        RUNNING,

        /** The handler returned; its result is not written yet. */
        FINISHED,

        /** Given up before it started: handed back, or left to lease recovery. */
        RELEASED
    }

    private final QueueClock clock;

    private final long leaseMillis;

    private final Map<ClaimId, Held> held = new ConcurrentHashMap<>();

    /** Claims given up because their lease could not be renewed in time, to hand back once the database answers. */
    private final ConcurrentLinkedQueue<ClaimedTask> givenUp = new ConcurrentLinkedQueue<>();

    HeldTasks(QueueClock clock, Duration lease) {
        this.clock = clock;
        this.leaseMillis = lease.toMillis();
    }

    /** How often {@link #guardLeases} should run: a tenth of the lease, at least every 50 ms. */
    long guardIntervalMillis() {
        return Math.max(50, leaseMillis / 10);
    }

    /** Holds a task just claimed, whose lease ends at {@code leaseUntil} on the queue clock at the latest. */
    Held add(ClaimedTask task, long leaseUntil) {
        Held entry = new Held(task, leaseUntil);
        held.put(task.claimId(), entry);
        return entry;
    }

    /** Renewals keep every lease at least two thirds of a lease ahead; a third or less left means they failed. */
    boolean leaseEndsSoon(Held entry, long now) {
        return entry.leaseUntil - now <= leaseMillis / 3;
    }

    /** A task about to start whose lease ends soon: it does not start, and goes back once the database answers. */
    void giveUp(Held entry) {
        entry.state.set(State.RELEASED);
        givenUp.add(entry.task);
    }

    /**
     * Every claim held, from claim until its result is written, and not given up: the leases to renew. A handler that
     * ran over its timeout and whose failure was written without it holds its thread here, but no lease: its attempt
     * is over, and the task is the retry's.
     */
    List<ClaimId> claims() {
        List<ClaimId> claims = new ArrayList<>(held.size());
        held.forEach((claim, entry) -> {
            if (entry.state.get() != State.RELEASED && !entry.failureWritten()) {
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
            if (entry.release()) {
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
     * at once, the ledger first gives up an unstarted task (it is not renewed any more; it is handed back once the
     * database answers, or lease recovery hands it out again) and interrupts a running handler. A task given up
     * stays known here for one more lease, so this instance does not take it back as an orphan of a lost claim answer.
     */
    void guardLeases() {
        long now = clock.now();
        int gaveUp = 0;
        List<Long> interrupted = new ArrayList<>();
        for (Held entry : held.values()) {
            if (!leaseEndsSoon(entry, now) || entry.failureWritten()) {
                continue; // one whose failure was written holds no lease: the timeout interrupted it already
            }
            if (entry.release()) {
                givenUp.add(entry.task);
                gaveUp++;
            }
            else if (entry.interrupt()) {
                interrupted.add(entry.task.id());
            }
            else if (entry.state.get() == State.RELEASED && entry.leaseUntil + leaseMillis < now) {
                held.remove(entry.task.claimId());
            }
        }
        if (gaveUp > 0 || !interrupted.isEmpty()) {
            log.warn("Could not renew task leases in time (is the database reachable? did this instance stall?): "
                    + "gave up {} unstarted task(s) and interrupted the handler(s) of {}, so that no other instance "
                    + "runs them while they run here", gaveUp, interrupted);
        }
    }

    /** How many handlers have been running for longer than {@code nanos}, at {@code now} ({@link System#nanoTime}). */
    int runningLongerThan(long nanos, long now) {
        int count = 0;
        for (Held entry : held.values()) {
            long since = entry.runningSince();
            if (since != 0 && now - since > nanos) {
                count++;
            }
        }
        return count;
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
        for (Held entry : held.values()) {
            if (entry.task.id() == id && !entry.failureWritten()) {
                return true;
            }
        }
        return false;
    }

    /** How many tasks are held (claimed and not yet written). */
    int count() {
        return claims().size();
    }

    /** Whether any of these claims is of a task with a key (its key may have a follow-up waiting). */
    boolean anyKeyed(List<ClaimId> claims) {
        for (ClaimId claim : claims) {
            Held entry = held.get(claim);
            if (entry != null && entry.task.key() != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Forgets claims whose results are written; but for a handler that still runs after its failure was written
     * (it ran over its timeout and ignored the interrupt): it counts as a running handler here until it returns
     * ({@link #returnedAfterFailure}), so the pool knows its thread is taken.
     */
    void forget(List<ClaimId> claims) {
        for (ClaimId claim : claims) {
            held.computeIfPresent(claim, (key, entry) -> entry.stillRunsAfterFailure() ? entry : null);
        }
    }

    /** A handler whose failure was written while it ran has returned: its thread is free, and nothing else is left. */
    void returnedAfterFailure(Held entry) {
        held.remove(entry.task.claimId(), entry);
    }

    /**
     * Running handlers with a timeout still to watch, for the timeout check: before their timeout, or within the grace
     * after its interrupt.
     */
    List<Held> watched() {
        List<Held> watched = new ArrayList<>();
        for (Held entry : held.values()) {
            if (entry.timeoutWatched()) {
                watched.add(entry);
            }
        }
        return watched;
    }

    /**
     * Every task not started yet, marked released so it never starts, with those given up before: to be handed back
     * to the database. They are forgotten here.
     */
    List<ClaimedTask> releaseUnstarted() {
        List<ClaimedTask> released = new ArrayList<>(takeGivenUp());
        for (Held entry : held.values()) {
            if (entry.release()) {
                released.add(entry.task);
            }
        }
        forget(released.stream().map(ClaimedTask::claimId).toList());
        return released;
    }

    /** Interrupts every running handler: its task is left to its lease, as if the lease were lost. */
    void interruptRunning() {
        for (Held entry : held.values()) {
            entry.interrupt();
        }
    }

    /** Marks every task not started yet released, so none starts, and hands nothing back: what a crash does. */
    void abandonUnstarted() {
        for (Held entry : held.values()) {
            entry.release();
        }
    }

    /** What a handler's timeout has done to its attempt, as far as it got. */
    enum Overrun {

        /** The handler returned within its timeout, or has none. */
        NONE,

        /** The handler ran over its timeout and was interrupted: the attempt counts as failed. */
        INTERRUPTED,

        /**
         * The handler had not returned a while after its interrupt: its failure was written without it, and whatever
         * it returns is dropped.
         */
        FAILURE_WRITTEN
    }

    /**
     * One held claim: the task, where it is ({@link State}), its lease, the thread its handler runs on, and its
     * handler's timeout, if it has one ({@link Overrun}).
     */
    static final class Held implements TaskRunner.Watch {

        final ClaimedTask task;

        /** When the lease ends at the latest, on the queue clock. */
        volatile long leaseUntil;

        private final AtomicReference<State> state = new AtomicReference<>(State.WAITING);

        /** The thread running the handler, while it runs; guarded by this. */
        private @Nullable Thread thread;

        /** When the handler started ({@link System#nanoTime()}), 0 while it does not run. */
        private volatile long runningSince;

        /** Set once the handler was interrupted, so it is interrupted once, not at every guard pass. */
        private boolean interrupted;

        /** The handler's timeout, {@code null} for none; guarded by this, as the fields below. */
        private @Nullable Duration timeout;

        /** When the handler runs over its timeout ({@link System#nanoTime}); then, when its interrupt's grace ends. */
        private long deadline;

        private Overrun overrun = Overrun.NONE;

        /** The run noted that its handler returned: no timeout fires past this. */
        private boolean returned;

        Held(ClaimedTask task, long leaseUntil) {
            this.task = task;
            this.leaseUntil = leaseUntil;
        }

        /** Takes a waiting task for its handler to run; {@code false} when it was released meanwhile. */
        boolean start() {
            return state.compareAndSet(State.WAITING, State.RUNNING);
        }

        /** Its handler returned. */
        void finish() {
            state.set(State.FINISHED);
        }

        /** Gives up a task that has not started; {@code false} when it started (or was released) already. */
        boolean release() {
            return state.compareAndSet(State.WAITING, State.RELEASED);
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

        @Override
        public boolean leaseLost() {
            return wasInterrupted();
        }

        /** Its handler starts now and may run until {@code deadline} ({@link System#nanoTime}). */
        synchronized void watchTimeout(Duration timeout, long deadline) {
            this.timeout = timeout;
            this.deadline = deadline;
        }

        @Override
        public synchronized @Nullable Duration timeout() {
            return timeout;
        }

        @Override
        public synchronized Overrun handlerReturned() {
            returned = true;
            return overrun;
        }

        /** Whether its handler runs with a timeout that has not finished its course (the failure not written). */
        synchronized boolean timeoutWatched() {
            return timeout != null && !returned && overrun != Overrun.FAILURE_WRITTEN;
        }

        /** When the timeout check has to look at it next ({@link System#nanoTime}). */
        synchronized long deadline() {
            return deadline;
        }

        /**
         * The handler ran over its timeout at {@code now}: interrupts it, and gives it {@code grace} to return before
         * its failure is written without it. {@code false} when it returned meanwhile, or was interrupted already.
         */
        synchronized boolean overran(long now, long grace) {
            if (returned || overrun != Overrun.NONE || thread == null || now - deadline < 0) {
                return false;
            }
            overrun = Overrun.INTERRUPTED;
            deadline = now + grace;
            thread.interrupt();
            return true;
        }

        /**
         * The handler did not return within the grace after its interrupt: from now its failure is the timeout
         * check's to write, and what the handler returns is dropped. The thread that still runs it, or {@code null}
         * when it returned meanwhile (then the run writes its failure).
         */
        synchronized @Nullable Thread ignoredInterrupt(long now) {
            if (returned || overrun != Overrun.INTERRUPTED || thread == null || now - deadline < 0) {
                return null;
            }
            overrun = Overrun.FAILURE_WRITTEN;
            return thread;
        }

        synchronized boolean failureWritten() {
            return overrun == Overrun.FAILURE_WRITTEN;
        }

        private synchronized boolean stillRunsAfterFailure() {
            return overrun == Overrun.FAILURE_WRITTEN && thread != null;
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
}
