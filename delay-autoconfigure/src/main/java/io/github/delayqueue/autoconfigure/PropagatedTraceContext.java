package io.github.delayqueue.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.runtime.TraceContextSource;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

/**
 * The calling thread's trace as the application's propagator writes it into a message (W3C {@code traceparent}, or
 * B3, with {@code tracestate} and baggage as configured): what a task stores when it is scheduled, and what the
 * propagator reads back when its run's observation starts. Outside a span: nothing.
 */
final class PropagatedTraceContext implements TraceContextSource {

    private final Tracer tracer;

    private final Propagator propagator;

    PropagatedTraceContext(Tracer tracer, Propagator propagator) {
        this.tracer = tracer;
        this.propagator = propagator;
    }

    @Override
    public Map<String, String> current() {
        TraceContext context = tracer.currentTraceContext().context();
        if (context == null) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        propagator.inject(context, headers, (carrier, name, value) -> headers.put(name, value));
        return headers;
    }
}
