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
 * The scheduler's threads but one, for the rounds that may wait on the database or Redis. A database that hangs
 * (a partition: each statement waits for the socket timeout) could otherwise hold every thread of a small pool, and
 * the rounds that never wait would starve with them: the lease guard, which interrupts a handler whose lease cannot
 * be renewed before another instance may take its task, and the timers that start claimed-ahead tasks. A round that
 * finds every lane taken does not wait on a thread either: its job is parked and resumed when a lane frees up, lease
 * renewal first. A scheduler whose thread count is unknown (not a {@link ThreadPoolTaskScheduler}, e.g. one with a
 * thread per task) has no limit; one with a single thread has one lane, shared with everything else.
 */
final class IoLanes {

    /** One per scheduler, for every job on it, the engine's and the starter's. */
    private static final Map<TaskScheduler, IoLanes> BY_SCHEDULER = Collections.synchronizedMap(new WeakHashMap<>());

    /** Weak, as the map's key: a scheduler that is gone takes its lanes with it. */
    private final @Nullable WeakReference<ThreadPoolTaskScheduler> pool;

    private int taken;

    private final Deque<PeriodicJob> parked = new ArrayDeque<>();

    private IoLanes(TaskScheduler scheduler) {
        this.pool = scheduler instanceof ThreadPoolTaskScheduler threads ? new WeakReference<>(threads) : null;
    }

    static IoLanes of(TaskScheduler scheduler) {
        return BY_SCHEDULER.computeIfAbsent(scheduler, IoLanes::new);
    }

    /** Asked at each round: a pool's size can be changed while it runs. */
    private int lanes() {
        ThreadPoolTaskScheduler threads = pool == null ? null : pool.get();
        if (threads == null) {
            return Integer.MAX_VALUE;
        }
        try {
            return Math.max(1, threads.getScheduledThreadPoolExecutor().getCorePoolSize() - 1);
        }
        catch (IllegalStateException ex) { // not initialized: it runs nothing yet
            return 1;
        }
    }

    /** Takes a lane for a round of {@code job}; {@code false} when none is free and the job is parked until one is. */
    synchronized boolean enter(PeriodicJob job) {
        if (taken < lanes()) {
            taken++;
            return true;
        }
        if (!parked.contains(job)) {
            if (job.isFirstInLine()) {
                parked.addFirst(job);
            }
            else {
                parked.addLast(job);
            }
        }
        return false;
    }

    /** Gives a lane back, and resumes a parked job to take it. */
    void leave() {
        synchronized (this) {
            taken--;
        }
        PeriodicJob next;
        while ((next = poll()) != null) {
            if (next.resume()) { // outside this lock: resuming takes the job's
                return;
            }
        }
    }

    private synchronized @Nullable PeriodicJob poll() {
        return taken < lanes() ? parked.pollFirst() : null;
    }
}
