package io.github.delayqueue.runtime;

import java.util.concurrent.locks.LockSupport;

/**
 * The pause of housekeeping that shares the database with the consumers (the purge, bulk operations): after each
 * step as long as the step took, at most {@link #MAX_PAUSE_NANOS}. Such work then keeps the database busy half the
 * time at most, whatever the table's size or the machine's load, so the claims and completions running beside it
 * wait less, and a minute with a large purge looks like a quiet one (the soak workload of delay-bench measures it).
 */
final class Pacing {

    /** The longest pause, however long the step took: a step slowed by an outage must not stall the work. */
    static final long MAX_PAUSE_NANOS = 1_000_000_000L;

    private Pacing() {
    }

    /**
     * How long to pause after the step that started at {@code stepStartedNanos} ({@link System#nanoTime()}): as long
     * as it took, at most {@link #MAX_PAUSE_NANOS}. For work in rounds on the scheduler (the purge), which asks for its
     * next round after the pause instead of holding a thread through it.
     */
    static long pauseNanos(long stepStartedNanos) {
        return Math.min(System.nanoTime() - stepStartedNanos, MAX_PAUSE_NANOS);
    }

    /**
     * Pauses as long as the step that started at {@code stepStartedNanos} ({@link System#nanoTime()}) took, at most
     * {@link #MAX_PAUSE_NANOS}; returns early, keeping the thread's interrupt status, when it is interrupted.
     *
     * @return {@code false} when interrupted: the caller stops
     */
    static boolean pauseAfter(long stepStartedNanos) {
        long pause = pauseNanos(stepStartedNanos);
        long until = System.nanoTime() + pause;
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left); // may return early for no reason: the loop waits out the rest
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return !Thread.currentThread().isInterrupted();
    }
}
