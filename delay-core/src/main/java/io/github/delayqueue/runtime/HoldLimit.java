package io.github.delayqueue.runtime;

import java.util.concurrent.locks.ReentrantLock;

/**
 * How many tasks an instance may hold at once, claimed and not yet finished: its threads plus a prefetch of what
 * they run in a tenth of a second at the median handler's duration, at most {@code delay.worker.prefetch}. The
 * prefetch is there for throughput: when handlers are so quick (a millisecond or less) that the claims' round trips
 * would hold the threads up, it makes claims large (a claim costs a commit, whatever its size). Otherwise nothing is
 * claimed beyond the free threads, so a task never waits here for a thread while another instance has one idle; and
 * while every thread is held by a handler that runs long, nothing is prefetched at all. Before any handler has run
 * the prefetch is full: a burst after startup is claimed in large batches from the first round.
 */
final class HoldLimit {

    /** How long a prefetched task may wait for a thread, at the median handler's duration. */
    private static final long WINDOW_NANOS = 100_000_000;

    /** Handlers longer than this (the median) leave time for a claim per thread: no prefetch. */
    private static final long QUICK_HANDLER_NANOS = 1_000_000;

    private final ReentrantLock lock = new ReentrantLock();

    private volatile Runnable freed = () -> {
    };

    private final int threads;

    private final int maxPrefetch;

    private final HandlerDurations durations;

    private int held;

    /** Every thread runs a handler that has taken far longer than usual: nothing claimed now would start soon. */
    private boolean threadsStuck;

    HoldLimit(int threads, int maxPrefetch, HandlerDurations durations) {
        this.threads = threads;
        this.maxPrefetch = maxPrefetch;
        this.durations = durations;
    }

    /** The current limit on held tasks. */
    int limit() {
        lock.lock();
        try {
            return currentLimit();
        }
        finally {
            lock.unlock();
        }
    }

    private int currentLimit() {
        long median = durations.medianNanos();
        if (threadsStuck || median > QUICK_HANDLER_NANOS) {
            return threads;
        }
        long perTask = Math.max(median, 1_000); // at most one task per microsecond and thread
        return threads + (int) Math.min(maxPrefetch, threads * WINDOW_NANOS / perTask);
    }

    /** How many more tasks may be held now; 0 or less when none. */
    int free() {
        lock.lock();
        try {
            return currentLimit() - held;
        }
        finally {
            lock.unlock();
        }
    }

    /** Tells {@code listener} whenever slots may have come free: the dispatcher waits for that, not on a thread. */
    void onFreed(Runnable listener) {
        this.freed = listener;
    }

    void take(int count) {
        lock.lock();
        try {
            held += count;
        }
        finally {
            lock.unlock();
        }
    }

    /** Whether every thread is held by a handler running far longer than usual (see {@link WorkerPool}). */
    void threadsStuck(boolean stuck) {
        lock.lock();
        try {
            if (threadsStuck == stuck) {
                return;
            }
            threadsStuck = stuck;
        }
        finally {
            lock.unlock();
        }
        freed.run();
    }

    /** A held task's handler returned (or it was handed back). */
    void release() {
        lock.lock();
        try {
            held--;
        }
        finally {
            lock.unlock();
        }
        freed.run();
    }
}
