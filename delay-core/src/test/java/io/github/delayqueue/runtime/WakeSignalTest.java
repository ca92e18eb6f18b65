package io.github.delayqueue.runtime;

import java.time.Clock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WakeSignalTest {

    private final QueueClock clock = new QueueClock(Clock.systemUTC());

    private final WakeSignal signal = new WakeSignal(clock);

    @Test
    void sleepsUntilTheDeadline() throws InterruptedException {
        long start = System.nanoTime();
        signal.awaitUntil(clock.now() + 100);
        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(99);
    }

    @Test
    void anEarlierDueTimeWakesTheSleeperThen() throws InterruptedException {
        long dueAt = clock.now() + 150;
        Thread producer = new Thread(() -> signal.dueAt(dueAt));
        producer.start();
        signal.awaitUntil(clock.now() + 10_000);
        assertThat(clock.now()).isGreaterThanOrEqualTo(dueAt).isLessThan(dueAt + 5_000);
    }

    @Test
    void wakeNowEndsTheSleepAtOnceAndIsConsumed() throws InterruptedException {
        signal.wakeNow();
        long start = clock.now();
        signal.awaitUntil(start + 10_000);
        assertThat(clock.now() - start).isLessThan(5_000);
        long again = clock.now();
        signal.awaitUntil(again + 50);
        assertThat(clock.now() - again).isGreaterThanOrEqualTo(49);
    }

    @Test
    void aLaterAnnouncementSurvivesAnEarlierDeadline() throws InterruptedException {
        long announced = clock.now() + 120;
        signal.dueAt(announced);
        signal.awaitUntil(clock.now() + 20);
        signal.awaitUntil(clock.now() + 10_000);
        assertThat(clock.now()).isGreaterThanOrEqualTo(announced).isLessThan(announced + 5_000);
    }
}
