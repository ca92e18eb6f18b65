/**
 * What an operator sees of the queue through Spring Boot's actuator: Micrometer meters (counters and timers fed by
 * the engine's events, gauges read from a snapshot refreshed on a schedule), the {@code delayQueue} health
 * indicator, the {@code delayqueue} endpoint, and an {@code Observation} around each handler run for tracing.
 */
@NullMarked
package io.github.delayqueue.actuate;

import org.jspecify.annotations.NullMarked;
