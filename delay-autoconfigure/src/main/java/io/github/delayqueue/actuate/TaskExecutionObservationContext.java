package io.github.delayqueue.actuate;

import io.github.delayqueue.api.TaskContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * The {@link Observation.Context} of one handler run: the task it runs, as the handler itself sees it. A
 * {@link ReceiverContext} whose carrier is the task and whose headers are the trace context stored with it when it
 * was scheduled ({@link TaskContext#traceContext()}), so a tracer's receiving handler (Micrometer Tracing's
 * {@code PropagatingReceiverTracingObservationHandler}, which Spring Boot registers with a tracer) makes the run's span
 * a child of the span that scheduled the task, in the same trace; a task scheduled outside a trace starts a new one.
 */
public class TaskExecutionObservationContext extends ReceiverContext<TaskContext> {

    private final TaskContext task;

    public TaskExecutionObservationContext(TaskContext task) {
        super((carrier, name) -> carrier.traceContext().get(name));
        this.task = task;
        setCarrier(task);
    }

    public TaskContext getTask() {
        return task;
    }
}
