package io.github.delayqueue.runtime;

import java.lang.ref.WeakReference;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.Map;
import java.util.WeakHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * How many rounds may wait on the database or Redis at once on a scheduler, so that none of them waits behind what
 * it does not depend on. A database or Redis that hangs (a partition: each call waits for its timeout) could
 * otherwise hold every thread of a small pool. Of a pool's threads:
 * <ul>
 * <li>one is never taken by such a round: the timers that never wait run on it (the lease guard, which interrupts a
 * handler whose lease cannot be renewed before another instance may take its task; claimed-ahead starts);</li>
 * <li>one more, with three threads or more, is kept for the rounds that wait on the database alone and keep its
 * promises (lease renewal, the result writer), so a Redis that hangs, or a slow job, never holds them up;</li>
 * <li>the rest are shared by every round that waits on the database or Redis, those two included.</li>
 * </ul>
 * A round that finds no lane does not wait on a thread: its job is parked and resumed when one frees up, the
 * database-only rounds first. A scheduler whose thread count is unknown (not a {@link ThreadPoolTaskScheduler}, e.g.
 * one with a thread per task) has no limit; one with a single thread has one lane, shared with everything.
 */
final class IoLanes {

    /** What a round waits on, which decides the lanes it may take. */
    enum Waits {

        /** Nothing: a timer. It takes no lane. */
        NOTHING,

        /** The database alone, and a promise rides on it: lease renewal, the result writer. */
        DATABASE,

        /** The database or Redis: everything else. */
        DATABASE_OR_REDIS
    }

    /** Which lane a round took. */
    enum Lane {

        /** None was free: the job is parked. */
        NONE,

        /** The lane kept for the database-only rounds. */
        KEPT,

        SHARED
    }

    /** One per scheduler, for every job on it, the engine's and the starter's. */
    private static final Map<TaskScheduler, IoLanes> BY_SCHEDULER = Collections.synchronizedMap(new WeakHashMap<>());

    /** Weak, as the map's key: a scheduler that is gone takes its lanes with it. */
    private final @Nullable WeakReference<ThreadPoolTaskScheduler> pool;

    private boolean keptTaken;

    private int sharedTaken;

    private final Deque<PeriodicJob> parkedDatabase = new ArrayDeque<>();

    private final Deque<PeriodicJob> parkedOther = new ArrayDeque<>();

    private IoLanes(TaskScheduler scheduler) {
        this.pool = scheduler instanceof ThreadPoolTaskScheduler threads ? new WeakReference<>(threads) : null;
    }

    static IoLanes of(TaskScheduler scheduler) {
        return BY_SCHEDULER.computeIfAbsent(scheduler, IoLanes::new);
    }

    /** The pool's threads, asked at each round: its size can be changed while it runs. 0 when unknown. */
    private int threads() {
        ThreadPoolTaskScheduler threads = pool == null ? null : pool.get();
        if (threads == null) {
            return 0;
        }
        try {
            return threads.getScheduledThreadPoolExecutor().getCorePoolSize();
        }
        catch (IllegalStateException ex) { // not initialized: it runs nothing yet
            return 1;
        }
    }

    private boolean keptLaneExists(int threads) {
        return threads == 0 || threads >= 3;
    }

    private int sharedLanes(int threads) {
        if (threads == 0) {
            return Integer.MAX_VALUE;
        }
        return Math.max(1, threads - (keptLaneExists(threads) ? 2 : 1));
    }

    /** Takes a lane for a round of {@code job}; {@link Lane#NONE} when none is free and the job is parked. */
    synchronized Lane enter(PeriodicJob job, Waits waits) {
        int threads = threads();
        if (waits == Waits.DATABASE && keptLaneExists(threads) && !keptTaken) {
            keptTaken = true;
            return Lane.KEPT;
        }
        if (sharedTaken < sharedLanes(threads)) {
            sharedTaken++;
            return Lane.SHARED;
        }
        Deque<PeriodicJob> parked = waits == Waits.DATABASE ? parkedDatabase : parkedOther;
        if (!parked.contains(job)) {
            parked.addLast(job);
        }
        return Lane.NONE;
    }

    /** Gives a lane back, and resumes a parked job to take it. */
    void leave(Lane lane) {
        synchronized (this) {
            if (lane == Lane.KEPT) {
                keptTaken = false;
            }
            else if (lane == Lane.SHARED) {
                sharedTaken--;
            }
        }
        PeriodicJob next;
        while ((next = poll()) != null) {
            if (next.resume()) { // outside this lock: resuming takes the job's
                return;
            }
        }
    }

    private synchronized @Nullable PeriodicJob poll() {
        int threads = threads();
        boolean keptFree = keptLaneExists(threads) && !keptTaken;
        boolean sharedFree = sharedTaken < sharedLanes(threads);
        if ((keptFree || sharedFree) && !parkedDatabase.isEmpty()) {
            return parkedDatabase.pollFirst();
        }
        return sharedFree ? parkedOther.pollFirst() : null;
    }
}
