package io.github.delayqueue.actuate;

import io.github.delayqueue.api.TaskContext;
import io.micrometer.observation.Observation;

/** The {@link Observation.Context} of one handler run: the task it runs, as the handler itself sees it. */
public class TaskExecutionObservationContext extends Observation.Context {

    private final TaskContext task;

    public TaskExecutionObservationContext(TaskContext task) {
        this.task = task;
    }

    public TaskContext getTask() {
        return task;
    }
}
