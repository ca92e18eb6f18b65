package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Type;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.test.TaskEventsContract;
import org.jspecify.annotations.Nullable;

/**
 * {@link TaskEventsContract} on {@link UnservedTypeWarning}, once the context has started, on an instance that serves
 * one type: it warns of each other type it is told of, once.
 */
class UnservedTypeWarningContractTest extends TaskEventsContract {

    @Override
    protected TaskEvents createEvents() {
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(new TaskHandler() {
            @Override
            public String type() {
                return "order.cancel";
            }

            @Override
            public HandlerSettings settings() {
                return new HandlerSettings(null, null, 0);
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
                return "UnservedTypeWarningContractTest.cancel()";
            }
        });
        UnservedTypeWarning warning = new UnservedTypeWarning(registry);
        warning.afterSingletonsInstantiated();
        return warning;
    }
}
