package io.github.delayqueue.engine;

import java.time.Clock;

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
