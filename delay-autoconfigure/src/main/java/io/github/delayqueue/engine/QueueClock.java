package io.github.delayqueue.engine;

import java.time.Clock;

/**
 * The time every due date is written and compared in: epoch milliseconds from the application's {@link Clock}.
 * One instance of it serves the producer and the consumer side of an instance.
 */
public class QueueClock {

    private final Clock clock;

    public QueueClock(Clock clock) {
        this.clock = clock;
    }

    public long now() {
        return clock.millis();
    }
}
