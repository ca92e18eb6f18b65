package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Keeps the {@link QueueClock} aligned with a reference clock shared by every instance: the database server's, read
 * in microseconds with one query. Without this, an instance whose clock runs ahead would start tasks early and one
 * that runs behind would schedule them early.
 * <p>
 * One reading only says the reference was read somewhere inside the query's round trip, so an alignment first warms
 * the path up (a cold JVM and a fresh connection make the first round trips slow), then reads several times and keeps
 * the reading with the tightest round trip. The clock gets both ends of the window that reading allows. The first
 * alignment runs when the aligner is created, on a cold JVM, so it aligns again soon after start and then every
 * interval; a failed alignment is tried again every second until one succeeds.
 */
class ClockAligner extends PeriodicJob {

    /** Readings thrown away first: class loading, JIT and a cold connection make them slow and uneven. */
    static final int WARM_UP_READINGS = 2;

    /** Readings an alignment picks the tightest of. */
    static final int READINGS = 7;

    private static final Logger log = LoggerFactory.getLogger(ClockAligner.class);

    /** Offsets above this are worth a log line: someone should fix the host's time sync. */
    private static final long NOTABLE_OFFSET_MICROS = 1_000_000;

    /** Delays of the first alignments after start, from the previous one: the creation-time one ran cold. */
    private static final Duration[] EARLY_REALIGNMENTS = { Duration.ofSeconds(1), Duration.ofSeconds(9) };

    private static final Duration RETRY = Duration.ofSeconds(1);

    private final QueueClock clock;

    private final LongSupplier referenceMicros;

    private final Duration interval;

    private final FailureStreak failures = new FailureStreak(log, "Reading the database clock");

    private volatile boolean lastFailed;

    private int runsSinceStart;

    /**
     * @param referenceMicros reads the reference clock in epoch microseconds (the database's, by default)
     */
    public ClockAligner(TaskScheduler scheduler, QueueClock clock, LongSupplier referenceMicros, Duration interval) {
        super(scheduler, "clock alignment", interval);
        this.clock = clock;
        this.referenceMicros = referenceMicros;
        this.interval = interval;
        align();
    }

    /** Measures the offset; on failure the previous offset stays and {@code false} is returned. */
    boolean align() {
        try {
            for (int i = 0; i < WARM_UP_READINGS; i++) {
                referenceMicros.getAsLong();
            }
            Reading best = read();
            for (int i = 1; i < READINGS; i++) {
                Reading reading = read();
                if (reading.roundTripMicros() < best.roundTripMicros()) {
                    best = reading;
                }
            }
            long previous = clock.offsetMicros();
            clock.offsetMicros(best.lowMicros(), best.highMicros());
            failures.succeeded();
            lastFailed = false;
            long offset = best.lowMicros();
            log.debug("Aligned to the database clock: offset {} µs, known to within {} µs", offset,
                    best.roundTripMicros());
            if (Math.abs(offset) >= NOTABLE_OFFSET_MICROS && Math.abs(offset - previous) >= NOTABLE_OFFSET_MICROS) {
                log.warn("This instance's clock is {} ms {} the database's; due times follow the database clock",
                        Math.abs(offset) / 1000, offset > 0 ? "behind" : "ahead of");
            }
            return true;
        }
        catch (RuntimeException | Error ex) { // an Error too: giving up here would give up "never early"
            lastFailed = true;
            failures.failed(ex);
            return false;
        }
    }

    /**
     * One reading. The reference was read somewhere between {@code before} and {@code after} on the local clock, and
     * it counts whole microseconds, so the true offset lies in {@code [reference - after, reference + 1 - before]}.
     */
    private Reading read() {
        long before = clock.localMicros();
        long reference = referenceMicros.getAsLong();
        long after = clock.localMicros();
        return new Reading(reference - after, reference + 1 - before);
    }

    @Override
    void runOnce() {
        runsSinceStart++;
        align();
    }

    @Override
    Duration nextDelay() {
        Duration next = lastFailed ? RETRY
                : runsSinceStart < EARLY_REALIGNMENTS.length ? EARLY_REALIGNMENTS[runsSinceStart] : interval;
        return next.compareTo(interval) < 0 ? next : interval;
    }

    @Override
    public void start() {
        runsSinceStart = 0;
        super.start();
    }

    /** A reading's window for the offset; its width is the round trip. */
    record Reading(long lowMicros, long highMicros) {

        long roundTripMicros() {
            return highMicros - lowMicros;
        }
    }
}
