package io.github.delayqueue.handler;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

/**
 * Turns payloads into the JSON text stored with a task and back into a handler's parameter type. What every codec
 * must do is {@code io.github.delayqueue.test.PayloadCodecContract} in delay-test, a test to extend.
 */
public interface PayloadCodec {

    /** The payload as JSON; throws {@link IllegalArgumentException} when it cannot be serialised. */
    String encode(@Nullable Object payload);

    /** Binds JSON to {@code type}; throws {@link PayloadBindingException} when it does not fit. */
    @Nullable Object decode(String json, Type type);
}
