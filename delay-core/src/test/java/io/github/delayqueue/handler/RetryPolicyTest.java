package io.github.delayqueue.handler;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(3,
            new Backoff(Duration.ofSeconds(10), 2.0, Duration.ofSeconds(60)));

    @Test
    void backoffGrowsByTheMultiplierUpToTheCap() {
        assertThat(policy.backoffMillis(1, null)).isEqualTo(10_000);
        assertThat(policy.backoffMillis(2, null)).isEqualTo(20_000);
        assertThat(policy.backoffMillis(3, null)).isEqualTo(40_000);
        assertThat(policy.backoffMillis(4, null)).isEqualTo(60_000);
        assertThat(policy.backoffMillis(400, null)).isEqualTo(60_000);
    }

    @Test
    void theTaskWinsOverTheHandlerWhichWinsOverTheDefaults() {
        HandlerSettings handler = new HandlerSettings(5, new Backoff(Duration.ofMillis(100), 1, Duration.ofMillis(100)),
                0);
        assertThat(policy.maxAttempts(null, null)).isEqualTo(3);
        assertThat(policy.maxAttempts(null, handler)).isEqualTo(5);
        assertThat(policy.maxAttempts(1, handler)).isEqualTo(1);
        assertThat(policy.backoffMillis(3, handler)).isEqualTo(100);
        assertThat(policy.backoffMillis(1, new HandlerSettings(null, null, 0))).as("a handler that declares nothing")
            .isEqualTo(10_000);
    }

    @Test
    void impossibleBackoffsAreRejected() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new Backoff(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(2)));
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new Backoff(Duration.ofSeconds(5), 2, Duration.ofSeconds(2)));
    }
}
