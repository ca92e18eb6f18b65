package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

class RedisTimeoutAdviceTest {

    private static LettuceConnectionFactory withTimeout(Duration timeout) {
        // never started: only its configuration is read
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration(),
                LettuceClientConfiguration.builder().commandTimeout(timeout).build());
    }

    @Test
    void lettucesDefaultMinuteIsWorthAWarningThatNamesTheProperty() {
        assertThat(RedisTimeoutAdvice.check(withTimeout(Duration.ofSeconds(60))))
            .contains("60s").contains("spring.data.redis.timeout");
    }

    @Test
    void aShortTimeoutIsFine() {
        assertThat(RedisTimeoutAdvice.check(withTimeout(Duration.ofSeconds(2)))).isNull();
        assertThat(RedisTimeoutAdvice.check(withTimeout(RedisTimeoutAdvice.ADVISED_MAX))).isNull();
    }
}
