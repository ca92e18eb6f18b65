package io.github.delayqueue.autoconfigure;

import java.util.List;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.jspecify.annotations.Nullable;

/**
 * A W3C {@code traceparent} propagator for Micrometer Tracing's {@code SimpleTracer}, which has none of its own: what a
 * tracing bridge (Brave, OpenTelemetry) does for an application, reduced to the one header.
 */
final class W3cTestPropagator implements Propagator {

    static final String TRACEPARENT = "traceparent";

    private final Tracer tracer;

    W3cTestPropagator(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public List<String> fields() {
        return List.of(TRACEPARENT);
    }

    @Override
    public <C> void inject(TraceContext context, @Nullable C carrier, Setter<C> setter) {
        setter.set(carrier, TRACEPARENT, "00-" + context.traceId() + "-" + context.spanId() + "-01");
    }

    @Override
    public <C> Span.Builder extract(C carrier, Getter<C> getter) {
        String traceparent = getter.get(carrier, TRACEPARENT);
        if (traceparent == null) {
            return tracer.spanBuilder().setNoParent();
        }
        String[] parts = traceparent.split("-");
        return tracer.spanBuilder()
            .setParent(tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(true).build());
    }
}
