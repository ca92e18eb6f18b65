/**
 * What applications touch: {@link io.github.delayqueue.api.DelayQueue} to schedule,
 * {@link io.github.delayqueue.api.DelayedHandler} to run, and the values they exchange.
 *
 * @since 0.1.0
 */
@NullMarked
package io.github.delayqueue.api;

import org.jspecify.annotations.NullMarked;
