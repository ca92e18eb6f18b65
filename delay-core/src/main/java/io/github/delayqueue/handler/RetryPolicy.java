package io.github.delayqueue.handler;

import org.jspecify.annotations.Nullable;

/**
 * Resolves how often a task may run and how long it waits between attempts: the task's own {@code max_attempts}
 * wins, then its handler's setting, then the queue-wide {@code delay.retry.*} defaults.
 */
public final class RetryPolicy {

    private final int defaultMaxAttempts;

    private final Backoff defaultBackoff;

    public RetryPolicy(int defaultMaxAttempts, Backoff defaultBackoff) {
        if (defaultMaxAttempts < 1) {
            throw new IllegalArgumentException("max attempts must be at least 1: " + defaultMaxAttempts);
        }
        this.defaultMaxAttempts = defaultMaxAttempts;
        this.defaultBackoff = defaultBackoff;
    }

    public int maxAttempts(@Nullable Integer taskMaxAttempts, @Nullable HandlerSettings handler) {
        if (taskMaxAttempts != null) {
            return taskMaxAttempts;
        }
        if (handler != null && handler.maxAttempts() != null) {
            return handler.maxAttempts();
        }
        return defaultMaxAttempts;
    }

    public long backoffMillis(int attempt, @Nullable HandlerSettings handler) {
        Backoff backoff = handler != null && handler.backoff() != null ? handler.backoff() : defaultBackoff;
        return backoff.delayMillis(attempt);
    }
}
