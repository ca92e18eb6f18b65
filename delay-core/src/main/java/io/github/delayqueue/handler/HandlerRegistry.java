package io.github.delayqueue.handler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/** The handlers of this instance by task type; a second handler for a type is a startup error naming both. */
public class HandlerRegistry {

    private final Map<String, TaskHandler> handlers = new ConcurrentHashMap<>();

    public void register(TaskHandler handler) {
        TaskHandler previous = handlers.putIfAbsent(handler.type(), handler);
        if (previous != null) {
            throw new IllegalStateException("Two @DelayedHandler methods for task type '" + handler.type() + "': "
                    + previous.description() + " and " + handler.description()
                    + "; a type has exactly one handler, rename one of the types");
        }
    }

    public @Nullable TaskHandler find(String type) {
        return handlers.get(type);
    }
}
