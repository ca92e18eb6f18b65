package io.github.delayqueue.runtime;

import java.util.Arrays;

/**
 * The run times of the last handlers that returned, for telling a handler that takes long from the usual: the
 * median, so that a few very slow handlers among many quick ones do not move it.
 */
final class HandlerDurations {

    private static final int SIZE = 64;

    private final long[] nanos = new long[SIZE];

    private int count;

    private int next;

    synchronized void record(long durationNanos) {
        nanos[next] = durationNanos;
        next = (next + 1) % SIZE;
        count = Math.min(count + 1, SIZE);
    }

    /** The median of the recorded durations, or 0 before any was recorded. */
    synchronized long medianNanos() {
        if (count == 0) {
            return 0;
        }
        long[] copy = Arrays.copyOf(nanos, count);
        Arrays.sort(copy);
        return copy[count / 2];
    }
}
