package io.github.delayqueue.test;

import java.time.Duration;

import io.github.delayqueue.store.TaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TaskStoreContract} on {@link InMemoryTaskStore}: the fake the engine's and the auto-configuration's tests run
 * on keeps the rules of the real store.
 */
class InMemoryTaskStoreTest extends TaskStoreContract {

    private final SettableClock clock = SettableClock.atMillis(T0 + 42);

    @Override
    protected TaskStore createStore() {
        return new InMemoryTaskStore(clock);
    }

    @Override
    protected AutoCloseable purgeElsewhere() {
        return ((InMemoryTaskStore) store).holdPurgeLock();
    }

    @Override
    protected long expectedStoreTime() {
        return clock.millis();
    }

    @Test
    void theStoresClockIsTheClockItWasGiven() {
        clock.advance(Duration.ofMillis(1_500).plusNanos(2_500));

        assertThat(store.currentTimeMillis()).isEqualTo(T0 + 42 + 1_500);
        assertThat(store.currentTimeMicros()).isEqualTo((T0 + 42 + 1_500) * 1000 + 2);
    }
}
