/**
 * The handler model: {@link io.github.delayqueue.handler.TaskHandler}s by task type in the
 * {@link io.github.delayqueue.handler.HandlerRegistry} (usually {@code @DelayedHandler} methods), what each declares
 * (attempts, backoff, concurrency) and how retries are resolved, and the two extension points around a run:
 * {@link io.github.delayqueue.handler.PayloadCodec}, which turns payloads into stored JSON and back, and
 * {@link io.github.delayqueue.handler.HandlerInvoker}, which calls a handler. Uses the api alone.
 */
@NullMarked
package io.github.delayqueue.handler;

import org.jspecify.annotations.NullMarked;
