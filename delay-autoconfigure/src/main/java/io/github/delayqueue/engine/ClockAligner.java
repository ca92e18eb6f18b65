package io.github.delayqueue.engine;

import java.time.Duration;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@link QueueClock} aligned with a reference clock shared by every instance: the database server's, read
 * with one query. The offset is chosen at the conservative end of what the query's round trip allows. Without this,
 * an instance whose clock runs ahead would start tasks early and one that runs behind would schedule them early.
 * Aligns once when created, then every interval.
 */
public class ClockAligner extends PeriodicJob {

    private static final Logger log = LoggerFactory.getLogger(ClockAligner.class);

    /** Offsets above this are worth a log line: someone should fix the host's time sync. */
    private static final long NOTABLE_OFFSET_MILLIS = 1000;

    private final QueueClock clock;

    private final LongSupplier reference;

    private final Throttle throttle = new Throttle(log, "Reading the database clock");

    public ClockAligner(QueueClock clock, LongSupplier reference, Duration interval) {
        super("delay-clock", interval);
        this.clock = clock;
        this.reference = reference;
        align();
    }

    /** Measures the offset once; on failure the previous offset stays. */
    public void align() {
        try {
            long before = clock.localMillis();
            long referenceMillis = reference.getAsLong();
            long after = clock.localMillis();
            // The reference was read somewhere between before and after, and the database truncates it to the
            // millisecond, so the true offset lies in [reference - after, reference + 1 - before]. Take the low end:
            // "now" may then run up to a round trip behind the reference, never ahead, and a task never starts early.
            long offset = referenceMillis - after;
            long previous = clock.offsetMillis();
            clock.offsetMillis(offset);
            throttle.succeeded();
            if (Math.abs(offset) >= NOTABLE_OFFSET_MILLIS && Math.abs(offset - previous) >= NOTABLE_OFFSET_MILLIS) {
                log.warn("This instance's clock is {} ms {} the database's; due times follow the database clock",
                        Math.abs(offset), offset > 0 ? "behind" : "ahead of");
            }
        }
        catch (RuntimeException ex) {
            throttle.failed(ex);
        }
    }

    @Override
    void runOnce() {
        align();
    }
}
