package io.github.delayqueue.actuate;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.TaskHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Runs each handler inside a Micrometer {@link Observation} named {@code delay.task.execution}, so a tracer sees a
 * span per run and the handler's own observations nest in it. The run continues the trace that scheduled the task
 * ({@link TaskExecutionObservationContext} is a receiver context on the trace context stored with the task), however
 * much later and on whichever instance it runs; a task scheduled outside a trace starts a new one. A failure is
 * recorded on the observation and then passed on unchanged, so the engine's retry decision does not depend on
 * observation.
 */
public final class ObservedHandlerInvoker implements HandlerInvoker {

    private static final TaskExecutionObservationConvention DEFAULT = new DefaultTaskExecutionObservationConvention();

    private final ObservationRegistry registry;

    private final @Nullable TaskExecutionObservationConvention convention;

    public ObservedHandlerInvoker(ObservationRegistry registry,
            @Nullable TaskExecutionObservationConvention convention) {
        this.registry = registry;
        this.convention = convention;
    }

    @Override
    public void invoke(TaskHandler handler, @Nullable Object payload, TaskContext context) throws Exception {
        Observation observation = Observation.createNotStarted(convention, DEFAULT,
                () -> new TaskExecutionObservationContext(context), registry);
        observation.observeChecked(() -> handler.handle(payload, context));
    }
}
