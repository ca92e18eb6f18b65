package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;


/** How the aligner picks its reading and when it aligns, against a scripted local clock and reference. */
class ClockAlignerTest {

    private static final long T0 = 1_700_000_000_000_000L; // epoch micros

    @Test
    void keepsTheReadingWithTheTightestRoundTripAndBothEndsOfItsWindow() {
        ScriptedClock local = new ScriptedClock();
        Deque<Long> references = new ArrayDeque<>();
        references.add(-1L); // warm-up readings: never used
        references.add(-1L);
        // seven readings: local before, the reference, local after; the database runs 5 ms ahead
        long[] roundTrips = { 500, 300, 200, 40, 90, 800, 41 };
        long start = T0;
        for (long roundTrip : roundTrips) {
            local.add(start, start + roundTrip);
            references.add(start + 5_000 + roundTrip / 2); // read halfway through the round trip
            start += 10_000;
        }
        QueueClock clock = new QueueClock(local);
        ClockAligner aligner = aligner(clock, references::remove);

        assertThat(references).isEmpty();
        assertThat(aligner.nextDelay()).isEqualTo(Duration.ofSeconds(1));
        // the 40 µs reading, taken at T0 + 30 ms: reference T0 + 30 ms + 5 ms + 20 µs
        long reference = T0 + 30_000 + 5_000 + 20;
        assertThat(clock.offsetMicros()).isEqualTo(reference - (T0 + 30_000 + 40));
        assertThat(clock.offsetMicros()).isEqualTo(5_000 - 20);
        assertThat(clock.uncertaintyMicros()).isEqualTo(41);
    }

    @Test
    void nowStaysAtOrBehindTheReferenceAndLatestNowAtOrAheadOfIt() {
        ScriptedClock local = new ScriptedClock();
        Deque<Long> references = new ArrayDeque<>();
        references.add(0L);
        references.add(0L);
        for (int i = 0; i < ClockAligner.READINGS; i++) {
            local.add(T0, T0 + 100);
            references.add(T0 + 2_000_000 + 30); // the database is 2 s ahead; read 30 µs into the round trip
        }
        QueueClock clock = new QueueClock(local);
        aligner(clock, references::remove);

        // true offset 2 s exactly: now() is at most the round trip behind, latestNow() at most it ahead
        local.add(T0 + 10_000_000);
        long trueMicros = T0 + 10_000_000 + 2_000_000;
        long low = clock.nowMicros();
        local.add(T0 + 10_000_000);
        long high = clock.latestNowMicros();
        assertThat(low).isBetween(trueMicros - 101, trueMicros);
        assertThat(high).isBetween(trueMicros, trueMicros + 101);

        // an application instant becomes a due time that is never early, in whole milliseconds rounded up
        Instant at = Instant.ofEpochSecond(0, (T0 + 60_000_000) * 1_000);
        long due = clock.toQueueMillis(at);
        assertThat(due * 1_000).isGreaterThanOrEqualTo(T0 + 60_000_000 + 2_000_000)
            .isLessThan(T0 + 60_000_000 + 2_000_000 + 101 + 1_000);
        // and back: a caller planning in queue time gets its due time exactly
        long planned = (T0 + 90_000_000) / 1000 + 7;
        assertThat(clock.toQueueMillis(clock.toApplicationTime(planned))).isEqualTo(planned);
    }

    @Test
    void aFailedAlignmentKeepsTheOffsetAndIsRetriedEverySecond() {
        ScriptedClock local = new ScriptedClock();
        AtomicInteger calls = new AtomicInteger();
        LongSupplier reference = () -> {
            calls.incrementAndGet();
            throw new AssertionError("an Error, not an exception");
        };
        QueueClock clock = new QueueClock(local);
        clock.offsetMicros(1234, 1300);
        ClockAligner aligner = aligner(clock, reference);

        assertThat(calls).hasValue(1);
        assertThat(clock.offsetMicros()).isEqualTo(1234);
        assertThat(aligner.nextDelay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(aligner.align()).isFalse();
        aligner.runOnce();
        aligner.runOnce();
        assertThat(aligner.nextDelay()).as("still failing").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void realignsAfterOneAndTenSecondsThenEveryInterval() {
        ScriptedClock local = new ScriptedClock().repeating(T0);
        ClockAligner aligner = new ClockAligner(TestScheduler.SHARED, new QueueClock(local), () -> T0,
                Duration.ofMinutes(1));
        assertThat(aligner.nextDelay()).isEqualTo(Duration.ofSeconds(1));
        aligner.runOnce();
        assertThat(aligner.nextDelay()).isEqualTo(Duration.ofSeconds(9));
        aligner.runOnce();
        assertThat(aligner.nextDelay()).isEqualTo(Duration.ofMinutes(1));
        aligner.runOnce();
        assertThat(aligner.nextDelay()).isEqualTo(Duration.ofMinutes(1));

        ClockAligner fast = new ClockAligner(TestScheduler.SHARED, new QueueClock(local), () -> T0,
                Duration.ofMillis(200));
        assertThat(fast.nextDelay()).as("never later than the interval").isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void aFailedFirstAlignmentIsRetriedWithinSecondsNotAfterAWholeInterval() {
        AtomicInteger calls = new AtomicInteger();
        long aheadMicros = 3_600_000_000L;
        LongSupplier reference = () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("database not there yet");
            }
            Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000 + aheadMicros;
        };
        QueueClock clock = new QueueClock(Clock.systemUTC());
        ClockAligner aligner = new ClockAligner(TestScheduler.SHARED, clock, reference, Duration.ofMinutes(1));
        assertThat(clock.offsetMillis()).isZero();
        aligner.start();
        try {
            await().atMost(5, TimeUnit.SECONDS)
                .untilAsserted(() -> assertThat(clock.offsetMillis()).isBetween(3_599_000L, 3_600_000L));
        }
        finally {
            aligner.stop();
        }
    }

    private static ClockAligner aligner(QueueClock clock, LongSupplier reference) {
        return new ClockAligner(TestScheduler.SHARED, clock, reference, Duration.ofMinutes(1));
    }

    /** A clock that returns the instants it was given, in order, or one instant forever. */
    private static final class ScriptedClock extends Clock {

        private final Deque<Long> micros = new ArrayDeque<>();

        private Long forever;

        ScriptedClock add(long... values) {
            for (long value : values) {
                micros.add(value);
            }
            return this;
        }

        ScriptedClock repeating(long value) {
            forever = value;
            return this;
        }

        @Override
        public Instant instant() {
            long value = micros.isEmpty() && forever != null ? forever : micros.remove();
            return Instant.ofEpochSecond(0, value * 1_000);
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
}
