package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Instant;

/**
 * The time every due date is written and compared in, in epoch milliseconds. It reads the application's
 * {@link Clock} and adds the offset measured to the reference clock (the database's, by default, see
 * {@link ClockAligner}), so instances whose own clocks disagree still agree on when a task is due.
 * <p>
 * A measurement only bounds the offset, between the two ends of the query's round trip, so the clock keeps both
 * ends. {@link #now()} uses the low end: it never runs ahead of the reference, and the engine, comparing due times
 * against it, never starts a task early. Due times a producer computes use the high end ({@link #latestNow()},
 * {@link #toQueueMillis(Instant)}): they are never earlier than meant, even when the producer's and the consumer's
 * offsets err in opposite directions.
 * <p>
 * Applications need none of this; it is public, read-only, for tools that measure lateness against the time the
 * engine itself goes by ({@link DelayQueueRuntime#clock()}, used by the benchmark).
 *
 * @since 0.1.0
 */
public final class QueueClock {

    private final Clock clock;

    /** Both ends written together, so a reader never pairs the low end of one alignment with the high of another. */
    private volatile Offset offset = new Offset(0, 0);

    QueueClock(Clock clock) {
        this.clock = clock;
    }

    /** The reference clock in epoch milliseconds, at or behind it: what due times are compared against. */
    public long now() {
        return Math.floorDiv(nowMicros(), 1000);
    }

    /** {@link #now()} in microseconds, as fine as the application's clock reads, for timing starts to the due time. */
    public long nowMicros() {
        return localMicros() + offset.lowMicros();
    }

    /**
     * The reference clock in epoch milliseconds, at or ahead of it: the base of due times computed as now plus a
     * delay, so a task never falls due before its delay has passed on the reference clock.
     */
    public long latestNow() {
        return ceilMillis(latestNowMicros());
    }

    /** {@link #latestNow()} in microseconds. */
    public long latestNowMicros() {
        return localMicros() + offset.highMicros();
    }

    /**
     * An instant of the application's clock as a due time of the queue's clock, in epoch milliseconds, with the
     * offset at its high end: the task never falls due before the application's clock shows that instant.
     */
    public long toQueueMillis(Instant applicationTime) {
        long micros = Math.addExact(Math.multiplyExact(applicationTime.getEpochSecond(), 1_000_000L),
                applicationTime.getNano() / 1_000);
        return ceilMillis(Math.addExact(micros, offset.highMicros()));
    }

    /**
     * The inverse of {@link #toQueueMillis(Instant)}: the instant of the application's clock that becomes exactly
     * {@code queueMillis} as long as the offset stays as it is. For callers that plan in queue time.
     */
    public Instant toApplicationTime(long queueMillis) {
        long micros = Math.subtractExact(Math.multiplyExact(queueMillis, 1000L), offset.highMicros());
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
    }

    /** Milliseconds added to the application's clock (low end); positive when it runs behind the reference. */
    public long offsetMillis() {
        return Math.floorDiv(offset.lowMicros(), 1000);
    }

    /** Microseconds added to the application's clock by {@link #now()}: the low end of the measured offset. */
    public long offsetMicros() {
        return offset.lowMicros();
    }

    /** Width of the window the offset is known to lie in, in microseconds: the round trip it was measured in. */
    public long uncertaintyMicros() {
        Offset current = offset;
        return current.highMicros() - current.lowMicros();
    }

    /** The application's clock, without the offset. */
    long localMicros() {
        Instant instant = clock.instant();
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
    }

    /** Sets the offset window: the true offset lies in {@code [lowMicros, highMicros]}. */
    void offsetMicros(long lowMicros, long highMicros) {
        if (highMicros < lowMicros) {
            throw new IllegalArgumentException("offset window [" + lowMicros + ", " + highMicros + "] is empty");
        }
        this.offset = new Offset(lowMicros, highMicros);
    }

    /** Microseconds to milliseconds, rounded up: a due time must not round to before what it was computed as. */
    private static long ceilMillis(long micros) {
        return -Math.floorDiv(-micros, 1000);
    }

    private record Offset(long lowMicros, long highMicros) {
    }
}
