package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;

/**
 * Changes the {@link DelayQueueRuntimeBuilder} the auto-configuration fills from the {@code delay.*} properties,
 * before it builds the runtime: the way to set what no property covers (a listener, a handler invoker, a store of
 * one's own). Every customizer bean is applied, in {@code @Order} order, after the properties.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface DelayQueueRuntimeCustomizer {

    /**
     * Customizes the builder.
     *
     * @param builder the builder, with the properties applied
     */
    void customize(DelayQueueRuntimeBuilder builder);
}
