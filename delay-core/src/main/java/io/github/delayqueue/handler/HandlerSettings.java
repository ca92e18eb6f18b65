package io.github.delayqueue.handler;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What a handler declares about its tasks; {@code null} takes the queue-wide default.
 *
 * @param maxAttempts attempts allowed, or {@code null}
 * @param backoff the retry waits, or {@code null}
 * @param concurrency most tasks of this type running at once on an instance; 0 for no limit beyond the pool
 * @param transactional whether the handler runs in a transaction of the queue's DataSource that also marks its task
 *     done ({@code DelayedHandler#transactional}): its database work and the completion commit or roll back together
 * @param timeout how long one attempt may run before its handler is interrupted and the attempt counts as failed
 *     ({@code DelayedHandler#timeout}), or {@code null}
 * @param clusterConcurrency most tasks of this type running at once across every instance on the task table
 *     ({@code DelayedHandler#clusterConcurrency}); 0 for no limit
 * @param clusterStartsPerSecond most tasks of this type started per second across every instance
 *     ({@code DelayedHandler#clusterStartsPerSecond}); 0 for no limit
 */
public record HandlerSettings(@Nullable Integer maxAttempts, @Nullable Backoff backoff, int concurrency,
        boolean transactional, @Nullable Duration timeout, int clusterConcurrency, int clusterStartsPerSecond) {

    public HandlerSettings {
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("a handler timeout must be positive: " + timeout);
        }
        if (clusterConcurrency < 0 || clusterStartsPerSecond < 0) {
            throw new IllegalArgumentException("cluster-wide limits must not be negative: clusterConcurrency "
                    + clusterConcurrency + ", clusterStartsPerSecond " + clusterStartsPerSecond + " (0 for none)");
        }
    }

    /** Settings of a handler without cluster-wide limits. */
    public HandlerSettings(@Nullable Integer maxAttempts, @Nullable Backoff backoff, int concurrency,
            boolean transactional, @Nullable Duration timeout) {
        this(maxAttempts, backoff, concurrency, transactional, timeout, 0, 0);
    }

    /** Settings of a handler without a timeout of its own (the queue-wide default applies). */
    public HandlerSettings(@Nullable Integer maxAttempts, @Nullable Backoff backoff, int concurrency,
            boolean transactional) {
        this(maxAttempts, backoff, concurrency, transactional, null, 0, 0);
    }

    /** Settings of a handler that completes its tasks after it returns, in a write of the queue's own. */
    public HandlerSettings(@Nullable Integer maxAttempts, @Nullable Backoff backoff, int concurrency) {
        this(maxAttempts, backoff, concurrency, false, null, 0, 0);
    }
}
