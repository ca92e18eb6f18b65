package io.github.delayqueue.runtime;

/**
 * What tests in other packages may do to the engine's package-private parts: crash an engine (every thread stops at
 * once and nothing is written back), or set a clock's offset window as an alignment would.
 */
public final class EngineAccess {

    private EngineAccess() {
    }

    public static void crash(DelayQueueEngine engine) {
        engine.halt();
    }

    /** One pop from shard 0, as a claim would make: how an {@link Indexer} learns whether its index answers. */
    public static void popOnce(Indexer indexer) {
        indexer.pop(0, 0, 1);
    }

    /** Sets the offset window of {@code clock}: the true offset lies in {@code [lowMicros, highMicros]}. */
    public static void offsetMicros(QueueClock clock, long lowMicros, long highMicros) {
        clock.offsetMicros(lowMicros, highMicros);
    }
}
