package io.github.delayqueue.runtime;

import java.util.Map;

/**
 * Where the queue gets the trace a task is scheduled in, so that its run, however much later and on whichever
 * instance, continues that trace. At every {@code schedule} or {@code submit} call the queue asks for the calling
 * thread's trace context as propagation headers (a W3C {@code traceparent}, and whatever else the tracer propagates:
 * {@code tracestate}, baggage), stores them with the call's tasks (at most
 * {@link io.github.delayqueue.store.TaskTable#MAX_TRACE_CONTEXT_LENGTH} characters; headers that do not fit are left
 * out, the {@code traceparent} never) and hands them to the run in
 * {@link io.github.delayqueue.api.TaskContext#traceContext()}, where an observing
 * {@link io.github.delayqueue.handler.HandlerInvoker} continues the trace. The queue itself
 * knows no tracer: the Spring Boot auto-configuration gives one on Micrometer Tracing's {@code Propagator} when the
 * application has a tracer; without one the builder's default, {@link #NONE}, stores nothing.
 */
@FunctionalInterface
public interface TraceContextSource {

    /** No trace is carried: tasks store none, and their runs start traces of their own. */
    TraceContextSource NONE = Map::of;

    /**
     * The trace context of the calling thread as propagation headers, names to values; empty outside a trace.
     * Called once per scheduling call, on the caller's thread; it must be fast. What it throws is logged and the
     * call's tasks store no trace: scheduling never fails for tracing.
     *
     * @return the headers, empty for none
     */
    Map<String, String> current();
}
