package io.github.delayqueue.runtime;

/**
 * What tests in other packages may do to the engine's package-private parts: crash an engine (every thread stops at
 * once and nothing is written back), or set a clock's offset window as an alignment would.
 */
public final class EngineAccess {

    private EngineAccess() {
    }

    /** Stops every thread of the runtime's engine at once, writing nothing back: what a crash does. */
    public static void crash(DelayQueueRuntime runtime) {
        DelayQueueEngine engine = java.util.Objects.requireNonNull(runtime.engine(), "a runtime that runs tasks");
        engine.halt();
    }

    /** One pop from shard 0, as a claim would make: how the runtime learns whether its index answers. */
    public static void popOnce(DelayQueueRuntime runtime) {
        java.util.Objects.requireNonNull(runtime.indexer(), "a hybrid runtime").pop(0, 0, 1);
    }

    /** Sets the offset window of {@code clock}: the true offset lies in {@code [lowMicros, highMicros]}. */
    public static void offsetMicros(QueueClock clock, long lowMicros, long highMicros) {
        clock.offsetMicros(lowMicros, highMicros);
    }
}
