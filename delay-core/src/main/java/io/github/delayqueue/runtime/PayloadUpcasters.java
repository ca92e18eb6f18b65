package io.github.delayqueue.runtime;

import java.util.Map;
import java.util.function.UnaryOperator;

import io.github.delayqueue.handler.PayloadBindingException;

/**
 * The payload upcasters of an application, by task type ({@code DelayQueueRuntimeBuilder.payloadUpcaster}): each
 * turns a stored payload, old or current, into JSON its handler's current parameter type binds, before the payload
 * codec binds it. A task waits in the table across deploys, so its payload may have been written by an older version
 * of the class; the upcaster is where an application says how the old JSON maps onto the new. One per type, applied
 * to every payload of the type, so it must leave a current payload as it is.
 */
final class PayloadUpcasters {

    static final PayloadUpcasters NONE = new PayloadUpcasters(Map.of());

    private final Map<String, UnaryOperator<String>> byType;

    PayloadUpcasters(Map<String, UnaryOperator<String>> byType) {
        this.byType = Map.copyOf(byType);
    }

    /**
     * The payload of a task of {@code type} as its handler should read it; what an upcaster throws (or a {@code null}
     * it returns) is a {@link PayloadBindingException}, so the task is parked with the reason rather than lost.
     */
    String upcast(String type, String payload) {
        UnaryOperator<String> upcaster = byType.get(type);
        if (upcaster == null) {
            return payload;
        }
        String upcast;
        try {
            upcast = upcaster.apply(payload);
        }
        catch (RuntimeException ex) {
            throw new PayloadBindingException("the payload upcaster of type '" + type + "' failed on it: "
                    + TaskRunner.describe(ex), ex);
        }
        if (upcast == null) {
            throw new PayloadBindingException("the payload upcaster of type '" + type + "' returned null for it",
                    new IllegalStateException("an upcaster must return JSON"));
        }
        return upcast;
    }
}
