package io.github.delayqueue.api;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link DelayedHandler} method may ask about the task it runs; declare a parameter of this type to get it.
 *
 * @param id the task id
 * @param type the task type
 * @param key the business key, if one was given
 * @param attempt this attempt's number, starting at 1
 * @param dueAt when the task was due
 * @param scheduledAt when it was scheduled
 */
public record TaskContext(long id, String type, @Nullable String key, int attempt, Instant dueAt,
        Instant scheduledAt) {
}
