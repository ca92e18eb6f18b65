/**
 * The consumer and the runtime it shares with producers. The consumer: the dispatcher loop and its task sources,
 * claiming, the worker pool, the result writer, and the periodic jobs (lease renewal and recovery, migration between
 * the tiers, index repair, the purge), started and stopped by {@link io.github.delayqueue.runtime.DelayQueueEngine}.
 * Shared with the producer's path: the queue clock and its alignment to the database, the tiers, the index keeper,
 * the wake-up signal, and the events listeners hear. Plain constructors throughout, so tests can assemble an engine
 * without a Spring context.
 */
@NullMarked
package io.github.delayqueue.runtime;

import org.jspecify.annotations.NullMarked;
