package io.github.delayqueue.bench;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the handler writes each start, lock-free, shared by every instance of a run. Per task slot (the payload,
 * 0..n-1): the first start on two clocks, the wall clock ({@code Instant.now()}, what an application's handler
 * reads) and the starting instance's queue clock ({@code QueueClock}, what the engine times starts by), the due time
 * the task carried ({@code TaskContext.dueAt}, queue clock), and the number of starts.
 */
final class Recorder {

    private static final Clock WALL = Clock.systemUTC();

    private final int size;

    private final Plan plan;

    private final AtomicLongArray firstStartWallMicros;

    private final AtomicLongArray firstStartQueueMicros;

    private final AtomicLongArray contextDueMillis;

    private final AtomicIntegerArray starts;

    private final AtomicIntegerArray startedBy;

    private final AtomicInteger distinct = new AtomicInteger();

    private final LongAdder total = new LongAdder();

    private final LongAdder outOfRange = new LongAdder();

    private final LongAdder retries = new LongAdder();

    /** Starts of the bulk workload's far-future tasks, which the bulk operations move and cancel: never expected. */
    private final LongAdder bulkStarts = new LongAdder();

    private final LongAdder[] perInstance;

    Recorder(Plan plan, int instances) {
        this.plan = plan;
        this.size = plan.size();
        this.firstStartWallMicros = new AtomicLongArray(size);
        this.firstStartQueueMicros = new AtomicLongArray(size);
        this.contextDueMillis = new AtomicLongArray(size);
        this.starts = new AtomicIntegerArray(size);
        this.startedBy = new AtomicIntegerArray(size);
        this.perInstance = new LongAdder[instances];
        for (int i = 0; i < instances; i++) {
            perInstance[i] = new LongAdder();
        }
    }

    static long wallMicros() {
        return micros(WALL.instant());
    }

    static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }

    /**
     * Called by the handler on a worker thread, first thing. Returns how long the handler should then work, in
     * milliseconds (the plan's, 0 for a slot out of range).
     */
    int started(int instance, int slot, long contextDue, int attempt, long wallNowMicros, long queueNowMicros) {
        total.increment();
        if (slot < 0 || slot >= size) {
            outOfRange.increment();
            return 0;
        }
        if (attempt > 1) {
            retries.increment();
        }
        perInstance[instance].increment();
        if (starts.getAndIncrement(slot) == 0) {
            firstStartWallMicros.set(slot, wallNowMicros);
            firstStartQueueMicros.set(slot, queueNowMicros);
            contextDueMillis.set(slot, contextDue);
            startedBy.set(slot, instance);
            distinct.incrementAndGet();
        }
        return plan.workMillis[slot];
    }

    void bulkStarted() {
        bulkStarts.increment();
    }

    long bulkStarts() {
        return bulkStarts.sum();
    }

    Plan plan() {
        return plan;
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

    long firstStartWallMicros(int slot) {
        return firstStartWallMicros.get(slot);
    }

    long firstStartQueueMicros(int slot) {
        return firstStartQueueMicros.get(slot);
    }

    long contextDueMillis(int slot) {
        return contextDueMillis.get(slot);
    }

    long outOfRange() {
        return outOfRange.sum();
    }

    long retries() {
        return retries.sum();
    }

    long startsOn(int instance) {
        return perInstance[instance].sum();
    }
}
