package io.github.delayqueue.runtime;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.store.TaskTable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trace context as the task row keeps it ({@code trace_context}): one {@code name=value} a line, the
 * {@code traceparent} first, at most {@link TaskTable#MAX_TRACE_CONTEXT_LENGTH} characters. A header whose name holds
 * {@code =} or a line break, or whose value holds a line break, is left out (propagation headers never do), and so is
 * one that does not fit any more.
 */
final class TraceHeaders {

    private static final Logger log = LoggerFactory.getLogger(TraceHeaders.class);

    private static final String TRACEPARENT = "traceparent";

    private TraceHeaders() {
    }

    /** The calling thread's trace context, as stored; {@code null} when there is none or the source failed. */
    static @Nullable String capture(TraceContextSource source) {
        if (source == TraceContextSource.NONE) {
            return null;
        }
        try {
            return encode(source.current());
        }
        catch (RuntimeException ex) {
            log.debug("The trace context source failed; the tasks of this call carry no trace", ex);
            return null;
        }
    }

    static @Nullable String encode(@Nullable Map<String, String> headers) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        String traceparent = headers.get(TRACEPARENT);
        if (traceparent != null) {
            append(text, TRACEPARENT, traceparent);
        }
        headers.forEach((name, value) -> {
            if (!TRACEPARENT.equals(name)) {
                append(text, name, value);
            }
        });
        return text.length() == 0 ? null : text.toString();
    }

    static Map<String, String> decode(@Nullable String stored) {
        if (stored == null || stored.isEmpty()) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line : stored.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                headers.putIfAbsent(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return headers;
    }

    private static void append(StringBuilder text, @Nullable String name, @Nullable String value) {
        if (name == null || value == null || name.isEmpty() || !fits(name) || name.indexOf('=') >= 0
                || !fits(value)) {
            return;
        }
        int length = (text.length() == 0 ? 0 : 1) + name.length() + 1 + value.length();
        if (text.length() + length > TaskTable.MAX_TRACE_CONTEXT_LENGTH) {
            return;
        }
        if (text.length() > 0) {
            text.append('\n');
        }
        text.append(name).append('=').append(value);
    }

    private static boolean fits(String text) {
        return text.indexOf('\n') < 0 && text.indexOf('\r') < 0;
    }
}
