package io.github.delayqueue.bench;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the no-op handler writes each start, lock-free: per task slot (the payload, 0..n-1) the first start time in
 * queue-clock microseconds and the number of starts. Shared by every instance of a run.
 */
final class Recorder {

    private static final Clock WALL = Clock.systemUTC();

    private final int size;

    private final AtomicLongArray firstStartMicros;

    private final AtomicIntegerArray starts;

    private final AtomicIntegerArray startedBy;

    private final AtomicInteger distinct = new AtomicInteger();

    private final LongAdder total = new LongAdder();

    private final LongAdder outOfRange = new LongAdder();

    private final LongAdder dueMismatch = new LongAdder();

    private final LongAdder retries = new LongAdder();

    private final LongAdder[] perInstance;

    private final long[] dueMillis;

    /** Per instance: its queue clock minus the wall clock, in microseconds (the queue clock may follow the database). */
    private final AtomicLongArray offsetMicros;

    Recorder(long[] dueMillis, int instances) {
        this.size = dueMillis.length;
        this.dueMillis = dueMillis;
        this.firstStartMicros = new AtomicLongArray(size);
        this.starts = new AtomicIntegerArray(size);
        this.startedBy = new AtomicIntegerArray(size);
        this.perInstance = new LongAdder[instances];
        for (int i = 0; i < instances; i++) {
            perInstance[i] = new LongAdder();
        }
        this.offsetMicros = new AtomicLongArray(instances);
    }

    static long wallMicros() {
        Instant now = WALL.instant();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** Now on {@code instance}'s queue clock, in microseconds. */
    long nowMicros(int instance) {
        return wallMicros() + offsetMicros.get(instance);
    }

    void offsetMillis(int instance, long offsetMillis) {
        offsetMicros.set(instance, offsetMillis * 1_000);
    }

    /** Called by the handler on a worker thread. */
    void started(int instance, int slot, long contextDueMillis, int attempt) {
        long now = wallMicros() + offsetMicros.get(instance);
        total.increment();
        if (slot < 0 || slot >= size) {
            outOfRange.increment();
            return;
        }
        if (attempt > 1) {
            retries.increment();
        }
        if (contextDueMillis != dueMillis[slot]) {
            dueMismatch.increment();
        }
        perInstance[instance].increment();
        if (starts.getAndIncrement(slot) == 0) {
            firstStartMicros.set(slot, now);
            startedBy.set(slot, instance);
            distinct.incrementAndGet();
        }
    }

    int size() {
        return size;
    }

    int distinct() {
        return distinct.get();
    }

    long total() {
        return total.sum();
    }

    int starts(int slot) {
        return starts.get(slot);
    }

    long firstStartMicros(int slot) {
        return firstStartMicros.get(slot);
    }

    long dueMillis(int slot) {
        return dueMillis[slot];
    }

    long outOfRange() {
        return outOfRange.sum();
    }

    long dueMismatch() {
        return dueMismatch.sum();
    }

    long retries() {
        return retries.sum();
    }

    long startsOn(int instance) {
        return perInstance[instance].sum();
    }
}
