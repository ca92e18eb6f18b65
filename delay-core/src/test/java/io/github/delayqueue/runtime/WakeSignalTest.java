package io.github.delayqueue.runtime;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WakeSignalTest {

    private final QueueClock clock = new QueueClock(Clock.systemUTC());

    private final WakeSignal signal = new WakeSignal(clock);

    private final List<Long> told = new CopyOnWriteArrayList<>();

    WakeSignalTest() {
        signal.onAnnounced(told::add);
    }

    @Test
    void theLoopIsToldOfEachDueTimeEarlierThanTheOnesBefore() {
        long later = clock.now() + 10_000;
        signal.dueAt(later);
        signal.dueAt(later + 1);
        signal.dueAt(later - 5_000);
        assertThat(told).containsExactly(later, later - 5_000);
        assertThat(signal.next()).isEqualTo(later - 5_000);
    }

    @Test
    void aLookConsumesADueTimeThatHasComeAndKeepsALaterOne() {
        long later = clock.now() + 60_000;
        signal.dueAt(later);
        assertThat(signal.look()).isEqualTo(later);
        assertThat(signal.next()).isEqualTo(later);

        signal.wakeNow();
        assertThat(told).containsExactly(later, Long.MIN_VALUE);
        assertThat(signal.look()).isEqualTo(Long.MAX_VALUE);
        assertThat(signal.next()).isEqualTo(Long.MAX_VALUE);

        signal.dueAt(later);
        assertThat(told).as("after a look, any due time is news again").containsExactly(later, Long.MIN_VALUE, later);
    }
}
