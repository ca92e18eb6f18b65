package io.github.delayqueue.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How many tasks an instance may hold at once, claimed and not yet finished: its threads plus a prefetch sized to
 * what the pool finishes in a tenth of a second, at least as many as threads are idle and at most
 * {@code delay.worker.prefetch}. Short handlers so get large claims (a claim costs a commit, whatever its size),
 * while slow ones never sit claimed here for long when another instance could run them; and while every thread is
 * held by a handler that runs long, nothing is prefetched at all.
 */
final class Slots {

    /** How long, at the measured pace, a prefetched task may wait for a thread. */
    private static final double WINDOW_SECONDS = 0.1;

    private static final long SAMPLE_NANOS = 100_000_000;

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition freed = lock.newCondition();

    private final int threads;

    private final int maxPrefetch;

    private int held;

    private long finishedInSample;

    private long sampleStart = System.nanoTime();

    /** Tasks finished per second, smoothed. */
    private double pace;

    /** Every thread runs a handler that has taken far longer than usual: nothing claimed now would start soon. */
    private boolean threadsStuck;

    Slots(int threads, int maxPrefetch) {
        this.threads = threads;
        this.maxPrefetch = maxPrefetch;
    }

    /** The current limit on held tasks. */
    int limit() {
        lock.lock();
        try {
            return currentLimit(System.nanoTime());
        }
        finally {
            lock.unlock();
        }
    }

    private int currentLimit(long nanos) {
        long elapsed = nanos - sampleStart;
        if (elapsed >= SAMPLE_NANOS) {
            double measured = finishedInSample * 1e9 / elapsed;
            pace = pace == 0 ? measured : 0.5 * pace + 0.5 * measured;
            finishedInSample = 0;
            sampleStart = nanos;
        }
        if (threadsStuck) {
            return threads;
        }
        int idle = Math.max(0, threads - held);
        int prefetch = (int) Math.min(maxPrefetch, Math.max(idle, pace * WINDOW_SECONDS));
        return threads + prefetch;
    }

    /**
     * Waits up to {@code timeoutMillis} for a free slot, then up to {@code lingerMillis} more for {@code wanted}
     * of them: a busy pool frees slots every moment, and a fuller claim costs the same commit. Returns how many are
     * free, 0 when none came.
     */
    int awaitFree(long timeoutMillis, int wanted, long lingerMillis) throws InterruptedException {
        lock.lock();
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (free() <= 0) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return 0;
                }
                freed.awaitNanos(Math.min(remaining, SAMPLE_NANOS));
            }
            long lingerUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lingerMillis);
            while (free() < wanted) {
                long remaining = lingerUntil - System.nanoTime();
                if (remaining <= 0) {
                    break;
                }
                freed.awaitNanos(remaining);
            }
            return Math.max(0, free());
        }
        finally {
            lock.unlock();
        }
    }

    private int free() {
        return currentLimit(System.nanoTime()) - held;
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
            if (threadsStuck != stuck) {
                threadsStuck = stuck;
                freed.signalAll();
            }
        }
        finally {
            lock.unlock();
        }
    }

    /** A held task's handler returned (or it was handed back). */
    void release() {
        lock.lock();
        try {
            held--;
            finishedInSample++;
            freed.signalAll();
        }
        finally {
            lock.unlock();
        }
    }
}
