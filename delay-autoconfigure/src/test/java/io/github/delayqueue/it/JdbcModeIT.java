package io.github.delayqueue.it;

/** The life of a task with {@code delay.mode=jdbc}: the database alone. */
class JdbcModeIT extends AbstractQueueIT {

    @Override
    protected String[] modeProperties() {
        return new String[] { "delay.mode=jdbc" };
    }
}
