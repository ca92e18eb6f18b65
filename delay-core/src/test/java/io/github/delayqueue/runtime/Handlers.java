package io.github.delayqueue.runtime;

import java.lang.reflect.Type;
import java.util.Set;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.jspecify.annotations.Nullable;

/** Handlers that do nothing, for tests where only which types an instance serves matters. */
final class Handlers {

    private Handlers() {
    }

    /** A registry with a handler for each of {@code types}, without a concurrency limit. */
    static HandlerRegistry registry(String... types) {
        HandlerRegistry registry = new HandlerRegistry();
        for (String type : types) {
            registry.register(handler(type, 0));
        }
        return registry;
    }

    /** What an instance with handlers for {@code types}, none at its limit, claims. */
    static ClaimableTypes claiming(String... types) {
        HandlerRegistry registry = registry(types);
        return new ClaimableTypes(registry, new TypeLanes(registry),
                new PausedTypes(new InMemoryTaskStore(), Set.of()));
    }

    /** A handler of {@code type} that does nothing, at most {@code concurrency} at once (0: no limit). */
    static TaskHandler handler(String type, int concurrency) {
        return handler(type, new HandlerSettings(null, null, concurrency));
    }

    /** A handler of {@code type} that does nothing, with {@code settings}. */
    static TaskHandler handler(String type, HandlerSettings settings) {
        return new TaskHandler() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public HandlerSettings settings() {
                return settings;
            }

            @Override
            public @Nullable Type payloadType() {
                return null;
            }

            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
            }

            @Override
            public String description() {
                return type;
            }
        };
    }
}
