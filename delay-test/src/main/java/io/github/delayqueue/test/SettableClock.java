package io.github.delayqueue.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A {@link Clock} that stands still until the test moves it: the database clock of an {@link InMemoryTaskStore}, or
 * the application clock a {@code QueueClock} reads, so a test decides what "now" is and when leases end. Thread-safe.
 */
public final class SettableClock extends Clock {

    private volatile Instant now;

    public SettableClock(Instant start) {
        this.now = start;
    }

    public static SettableClock atMillis(long epochMillis) {
        return new SettableClock(Instant.ofEpochMilli(epochMillis));
    }

    public void set(Instant instant) {
        now = instant;
    }

    public void setMillis(long epochMillis) {
        now = Instant.ofEpochMilli(epochMillis);
    }

    public synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
