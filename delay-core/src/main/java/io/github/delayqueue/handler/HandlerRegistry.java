package io.github.delayqueue.handler;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

/**
 * The handlers of this instance by task type; a second handler for a type is a startup error naming both. An
 * application registers handlers through the runtime's builder (or, on Spring Boot, as beans); it uses this type
 * directly only for a {@link TaskHandler} of its own, written without {@code @DelayedHandler}.
 *
 * @since 0.1.0
 */
public class HandlerRegistry {

    private final Map<String, TaskHandler> handlers = new ConcurrentHashMap<>();

    /**
     * Registers a handler for its type.
     *
     * @param handler the handler
     * @throws IllegalStateException when the type has a handler already
     */
    public void register(TaskHandler handler) {
        TaskHandler previous = handlers.putIfAbsent(handler.type(), handler);
        if (previous != null) {
            throw new IllegalStateException("Two @DelayedHandler methods for task type '" + handler.type() + "': "
                    + previous.description() + " and " + handler.description()
                    + "; a type has exactly one handler, rename one of the types");
        }
    }

    /**
     * Registers every {@code @DelayedHandler} method of {@code bean}.
     *
     * @param bean an object with handler methods (a Spring proxy included)
     * @param resolver resolves attribute values, such as placeholders, before they are parsed
     * @param defaultBackoff the back-off that fills the attributes a method leaves out, asked for only then
     * @throws IllegalStateException naming the method and attribute, for a bad value or signature
     */
    public void registerAnnotated(Object bean, UnaryOperator<String> resolver, Supplier<Backoff> defaultBackoff) {
        AnnotatedHandlers.register(this, bean, resolver, defaultBackoff);
    }

    /**
     * The handler of a type.
     *
     * @param type the task type
     * @return its handler, or {@code null} when this instance has none
     */
    public @Nullable TaskHandler find(String type) {
        return handlers.get(type);
    }

    /**
     * The types this instance has handlers for: the only types it claims, so a task of another type waits in the
     * table for an instance (or another application on the same table) that runs it.
     *
     * @return a snapshot of the registered types
     */
    public Set<String> types() {
        return Set.copyOf(handlers.keySet());
    }
}
