package io.github.delayqueue.api;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link DelayedHandler} method may ask about the task it runs; declare a parameter of this type to get it.
 *
 * @param id the task id
 * @param type the task type
 * @param key the business key, if one was given
 * @param attempt this attempt's number, starting at 1; an attempt counts once its handler has started
 * @param dueAt when the task was due
 * @param scheduledAt when it was scheduled
 * @param fencingToken grows with every claim of the task. A process that stalls (a long GC pause, a paused VM)
 *     cannot stop its handler, and once its lease has run out another instance may run the task again while the
 *     stalled run resumes. Guard the handler's own writes with this token (store it beside what it changes and refuse
 *     a write whose token is lower than the stored one) and the stale run's writes are refused.
 * @param traceContext the trace the task was scheduled in, as propagation headers (a W3C {@code traceparent} and
 *     what else the tracer propagates), stored with the task; empty when it was scheduled outside a trace or without
 *     a tracer. The queue's observation of the run continues this trace, so the run's span is a child of the span
 *     that scheduled it; a handler invoker of one's own reads it to do the same. Since 0.1.0
 * @since 0.1.0
 */
public record TaskContext(long id, String type, @Nullable String key, int attempt, Instant dueAt,
        Instant scheduledAt, long fencingToken, Map<String, String> traceContext) {

    /**
     * A context; {@code traceContext} is copied.
     *
     * @since 0.1.0
     */
    public TaskContext {
        traceContext = Map.copyOf(traceContext);
    }

    /**
     * The context of a task scheduled outside a trace.
     *
     * @param id the task id
     * @param type the task type
     * @param key the business key, if one was given
     * @param attempt this attempt's number, starting at 1
     * @param dueAt when the task was due
     * @param scheduledAt when it was scheduled
     * @param fencingToken grows with every claim of the task
     * @since 0.1.0
     */
    public TaskContext(long id, String type, @Nullable String key, int attempt, Instant dueAt, Instant scheduledAt,
            long fencingToken) {
        this(id, type, key, attempt, dueAt, scheduledAt, fencingToken, Map.of());
    }
}
