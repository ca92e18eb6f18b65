/**
 * What applications touch: {@link io.github.delayqueue.api.DelayQueue} to schedule,
 * {@link io.github.delayqueue.api.DelayedHandler} to run, and the values they exchange.
 */
@NullMarked
package io.github.delayqueue.api;

import org.jspecify.annotations.NullMarked;
