package io.github.delayqueue.runtime;

import java.time.Duration;

import io.github.delayqueue.api.TaskStatus;

/**
 * Chooses a task's tier from its due time: due within the hybrid threshold it is {@code QUEUED} (also in the time
 * index), later it is {@code SCHEDULED} (database only) until migration moves it. Without an index every task is
 * {@code SCHEDULED}.
 */
final class Tiers {

    private final boolean indexed;

    private final long thresholdMillis;

    private Tiers(boolean indexed, long thresholdMillis) {
        this.indexed = indexed;
        this.thresholdMillis = thresholdMillis;
    }

    /** Tiers for {@code jdbc} mode: the database alone. */
    public static Tiers databaseOnly() {
        return new Tiers(false, 0);
    }

    /** Tiers for {@code hybrid} mode with the given threshold. */
    public static Tiers hybrid(Duration threshold) {
        return new Tiers(true, threshold.toMillis());
    }

    public boolean indexed() {
        return indexed;
    }

    public long thresholdMillis() {
        return thresholdMillis;
    }

    /** The latest due time that goes to the near tier at {@code now}; {@link Long#MIN_VALUE} when none does. */
    public long queuedUpTo(long now) {
        return indexed ? now + thresholdMillis : Long.MIN_VALUE;
    }

    public TaskStatus statusFor(long dueAt, long now) {
        return indexed && dueAt - now <= thresholdMillis ? TaskStatus.QUEUED : TaskStatus.SCHEDULED;
    }
}
