/**
 * Dispatching: the consumer loop, claiming, the worker pool, retries, migration between the tiers, lease recovery
 * and retention. Plain constructors throughout, so tests can assemble an engine without a Spring context.
 */
@NullMarked
package io.github.delayqueue.engine;

import org.jspecify.annotations.NullMarked;
