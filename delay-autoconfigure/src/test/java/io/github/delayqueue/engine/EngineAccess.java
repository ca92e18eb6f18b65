package io.github.delayqueue.engine;

/** Lets fault tests crash an engine: every thread stops at once and nothing is written back. */
public final class EngineAccess {

    private EngineAccess() {
    }

    public static void crash(DelayQueueEngine engine) {
        engine.halt();
    }
}
