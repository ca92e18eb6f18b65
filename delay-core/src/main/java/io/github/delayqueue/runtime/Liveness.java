package io.github.delayqueue.runtime;

import java.time.Duration;

/**
 * When a loop or a periodic job of the engine last got through a run without failing. A loop or job that has not for
 * a while is stalled (stuck on a hung connection, failing every run, or ended by something it could not survive), and
 * the queue's health says which one: each of them carries a guarantee (lease renewal, for one) that must not end
 * silently.
 */
final class Liveness {

    /** A loop or job is stalled after this many of its intervals without a completed run, and never sooner than... */
    private static final int STALLED_INTERVALS = 3;

    /** ...this: a job may wait a few seconds on a lock or a slow query without being anything to report. */
    private static final long STALLED_FLOOR_NANOS = 15_000_000_000L;

    private final String name;

    private final long stalledAfterNanos;

    private volatile long lastNanos = System.nanoTime();

    Liveness(String name, Duration interval) {
        this.name = name;
        this.stalledAfterNanos = Math.max(STALLED_FLOOR_NANOS, STALLED_INTERVALS * interval.toNanos());
    }

    String name() {
        return name;
    }

    /** A run completed, or the loop or job (re)started: it counts from now. */
    void alive() {
        lastNanos = System.nanoTime();
    }

    /** What the health reports of it at {@code nowNanos} ({@link System#nanoTime}). */
    EngineWork status(long nowNanos) {
        long since = nowNanos - lastNanos;
        return new EngineWork(name, Duration.ofMillis(since / 1_000_000), since > stalledAfterNanos);
    }
}
