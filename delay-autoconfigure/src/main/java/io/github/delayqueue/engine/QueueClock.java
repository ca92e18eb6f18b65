package io.github.delayqueue.engine;

import java.time.Clock;
import java.time.Instant;

/**
 * The time every due date is written and compared in, in epoch milliseconds. It reads the application's
 * {@link Clock} and adds the offset measured to the reference clock (the database's, by default, see
 * {@link ClockAligner}), so instances whose own clocks disagree still agree on when a task is due.
 */
public class QueueClock {

    private final Clock clock;

    private volatile long offsetMillis;

    public QueueClock(Clock clock) {
        this.clock = clock;
    }

    public long now() {
        return clock.millis() + offsetMillis;
    }

    /** {@link #now()} in microseconds, as fine as the application's clock reads, for timing starts to the due time. */
    public long nowMicros() {
        Instant instant = clock.instant();
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000 + offsetMillis * 1_000;
    }

    /** Milliseconds added to the application's clock; positive when it runs behind the reference. */
    public long offsetMillis() {
        return offsetMillis;
    }

    /** The application's clock, without the offset. */
    long localMillis() {
        return clock.millis();
    }

    void offsetMillis(long offsetMillis) {
        this.offsetMillis = offsetMillis;
    }
}
