package io.github.delayqueue.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code delay.task.execution} observation; declare a bean of this type to change them.
 */
public interface TaskExecutionObservationConvention extends ObservationConvention<TaskExecutionObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof TaskExecutionObservationContext;
    }
}
