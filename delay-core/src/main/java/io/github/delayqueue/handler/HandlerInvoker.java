package io.github.delayqueue.handler;

import io.github.delayqueue.api.TaskContext;
import org.jspecify.annotations.Nullable;

/**
 * Calls a handler; the place to wrap each run, e.g. in a Micrometer {@code Observation} so a tracer sees it. What
 * every invoker must do is {@code io.github.delayqueue.test.HandlerInvokerContract} in delay-test, a test to extend.
 */
@FunctionalInterface
public interface HandlerInvoker {

    HandlerInvoker DIRECT = TaskHandler::handle;

    void invoke(TaskHandler handler, @Nullable Object payload, TaskContext context) throws Exception;
}
