package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.context.SmartLifecycle;

/**
 * Starts the runtime with the context, and stops it in the runtime's two steps around the web server's graceful
 * shutdown ({@code DEFAULT_PHASE - 1024}): it stops taking tasks before the web server drains its requests, and
 * {@link Drain} waits for running handlers after the web server has stopped, so requests in flight may still
 * schedule. A context stopped and started again (checkpoint/restore) starts the runtime again.
 */
final class DelayQueueLifecycle implements SmartLifecycle {

    /** Before the web server's graceful shutdown: stop taking tasks first. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    /** After the web server has stopped ({@code DEFAULT_PHASE - 2048}). */
    static final int DRAIN_PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final DelayQueueRuntime runtime;

    private volatile boolean running;

    DelayQueueLifecycle(DelayQueueRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public void start() {
        runtime.start();
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        runtime.stopTakingTasks();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The second stop step, in {@link #DRAIN_PHASE}. */
    static final class Drain implements SmartLifecycle {

        private final DelayQueueRuntime runtime;

        private volatile boolean running;

        Drain(DelayQueueRuntime runtime) {
            this.runtime = runtime;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
            runtime.drain();
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return DRAIN_PHASE;
        }
    }
}
