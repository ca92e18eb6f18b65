package io.github.delayqueue.it;

/** The life of a task with {@code delay.mode=hybrid} (the default) on a single Redis node. */
class HybridModeIT extends AbstractQueueIT {

    @Override
    protected String[] modeProperties() {
        return new String[] { "delay.mode=hybrid" };
    }
}
