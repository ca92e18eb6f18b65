package io.github.delayqueue.runtime;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The earliest due time announced to the consumer loop since its last look. Producers in this JVM and wake-ups from
 * other instances lower it, and each time they do the loop is told, so it brings its next round forward to that time
 * instead of waiting for the one it planned; a wake-up is a hint, so a lost one costs no more than the loop's own cap.
 */
final class WakeSignal {

    private static final long NONE = Long.MAX_VALUE;

    private final QueueClock clock;

    /** Earliest due time announced since the loop last looked (queue time); {@link #NONE} when none. */
    private final AtomicLong announced = new AtomicLong(NONE);

    private volatile LongConsumer listener = dueAt -> {
    };

    public WakeSignal(QueueClock clock) {
        this.clock = clock;
    }

    /** A task falls due at {@code dueAt}: wake the loop then, if it planned to look later. */
    public void dueAt(long dueAt) {
        long current;
        do {
            current = announced.get();
            if (dueAt >= current) {
                return; // the loop was told of an earlier time already
            }
        }
        while (!announced.compareAndSet(current, dueAt));
        listener.accept(dueAt);
    }

    /** Wake the loop now. */
    void wakeNow() {
        dueAt(Long.MIN_VALUE);
    }

    /** Tells {@code listener} of every announced due time earlier than the ones before it since the last look. */
    void onAnnounced(LongConsumer listener) {
        this.listener = listener;
    }

    /**
     * The loop looks now: an announced time that has come is consumed, as this look finds its task; a later one
     * stays. Returns the announced time still to come, {@link Long#MAX_VALUE} when none.
     */
    long look() {
        long now = clock.now();
        long current;
        do {
            current = announced.get();
            if (current > now) {
                return current;
            }
        }
        while (!announced.compareAndSet(current, NONE));
        return NONE;
    }

    /** The earliest announced due time the loop has not looked at yet, {@link Long#MAX_VALUE} when none. */
    long next() {
        return announced.get();
    }
}
