package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Startup advice on the Redis command timeout. Lettuce waits 60 s by default for a Redis that stops answering (one
 * that refuses connections fails at once), and for that long the consumer waits before it falls back to the
 * database, and the first {@code schedule} waits too. The starter does not change the application's Redis settings,
 * so it says so once in the log instead.
 */
final class RedisTimeoutAdvice {

    /** Command timeouts above this are worth a warning. */
    static final Duration ADVISED_MAX = Duration.ofSeconds(5);

    private RedisTimeoutAdvice() {
    }

    /** The warning for {@code factory}'s command timeout, or {@code null} when it is short enough or unknown. */
    static @Nullable String check(RedisConnectionFactory factory) {
        if (!ClassUtils.isPresent("io.lettuce.core.RedisClient", RedisTimeoutAdvice.class.getClassLoader())
                || !(factory instanceof LettuceConnectionFactory lettuce)) {
            return null;
        }
        Duration timeout = Duration.ofMillis(lettuce.getTimeout());
        if (timeout.compareTo(ADVISED_MAX) <= 0) {
            return null;
        }
        return "Redis commands time out after " + timeout.toSeconds() + "s (spring.data.redis.timeout): if Redis "
                + "stops answering, the delay queue waits that long before it runs tasks from the database alone, "
                + "and the first schedule() call waits too. Set spring.data.redis.timeout to about 2s.";
    }
}
