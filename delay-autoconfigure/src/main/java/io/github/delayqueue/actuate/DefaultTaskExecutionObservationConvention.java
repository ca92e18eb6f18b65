package io.github.delayqueue.actuate;

import io.micrometer.common.KeyValues;

/**
 * The default naming of a handler run: observation {@code delay.task.execution}, span {@code delay <type>}, the
 * task type as the only low-cardinality key, named {@code type} as on every meter of the queue (it becomes a tag of
 * the observation's timer), id and attempt as high-cardinality keys (span attributes only).
 */
public class DefaultTaskExecutionObservationConvention implements TaskExecutionObservationConvention {

    public static final String NAME = "delay.task.execution";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(TaskExecutionObservationContext context) {
        return "delay " + context.getTask().type();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(TaskExecutionObservationContext context) {
        return KeyValues.of(TaskMeters.TYPE_TAG, context.getTask().type());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(TaskExecutionObservationContext context) {
        return KeyValues.of("delay.task.id", Long.toString(context.getTask().id()), "delay.task.attempt",
                Integer.toString(context.getTask().attempt()));
    }
}
