package io.github.delayqueue.handler;

import org.jspecify.annotations.Nullable;

/**
 * What a handler declares about its tasks; {@code null} takes the queue-wide default.
 *
 * @param maxAttempts attempts allowed, or {@code null}
 * @param backoff the retry waits, or {@code null}
 * @param concurrency most tasks of this type running at once on an instance; 0 for no limit beyond the pool
 */
public record HandlerSettings(@Nullable Integer maxAttempts, @Nullable Backoff backoff, int concurrency) {
}
