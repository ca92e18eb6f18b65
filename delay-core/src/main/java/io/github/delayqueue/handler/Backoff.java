package io.github.delayqueue.handler;

import java.time.Duration;

/**
 * Wait before retry number {@code n}: {@code initial * multiplier^(n-1)}, capped at {@code max}.
 *
 * @param initial wait after the first failed attempt
 * @param multiplier growth per further attempt, at least 1
 * @param max the cap
 */
public record Backoff(Duration initial, double multiplier, Duration max) {

    public Backoff {
        if (initial.isNegative()) {
            throw new IllegalArgumentException("backoff must not be negative: " + initial);
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("backoff multiplier must be a number >= 1: " + multiplier);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("max backoff " + max + " is shorter than the backoff " + initial);
        }
    }

    /** Wait after the failed attempt number {@code attempt} (1-based), in milliseconds. */
    long delayMillis(int attempt) {
        double delay = initial.toMillis() * Math.pow(multiplier, Math.max(0, attempt - 1));
        return (long) Math.min(delay, (double) max.toMillis());
    }
}
