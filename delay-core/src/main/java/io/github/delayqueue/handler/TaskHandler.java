package io.github.delayqueue.handler;

import java.lang.reflect.Type;

import io.github.delayqueue.api.TaskContext;
import org.jspecify.annotations.Nullable;

/** Runs the tasks of one type; usually a {@code @DelayedHandler} method, see {@link MethodTaskHandler}. */
public interface TaskHandler {

    String type();

    HandlerSettings settings();

    /** The type the payload is bound to, or {@code null} when the handler takes no payload. */
    @Nullable Type payloadType();

    /** Runs one task; any exception counts as a failed attempt. */
    void handle(@Nullable Object payload, TaskContext context) throws Exception;

    /** Names the handler in messages, e.g. {@code OrderTimeouts.cancel(OrderRef, TaskContext)}. */
    String description();
}
