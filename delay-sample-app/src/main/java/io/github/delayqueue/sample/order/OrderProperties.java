package io.github.delayqueue.sample.order;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Order timing, under {@code sample.orders.*}.
 */
@ConfigurationProperties("sample.orders")
public class OrderProperties {

    /**
     * How long a new order waits for payment before it is cancelled, when the request gives no "cancelAfter". Within
     * delay.hybrid.threshold (1h by default) the cancellation is indexed in Redis at once.
     */
    private Duration cancelAfter = Duration.ofMinutes(30);

    /**
     * How long after payment the follow-up e-mail goes out. Beyond delay.hybrid.threshold the task waits in the
     * database and moves to Redis only shortly before it is due.
     */
    private Duration followUpAfter = Duration.ofHours(24);

    public Duration getCancelAfter() {
        return cancelAfter;
    }

    public void setCancelAfter(Duration cancelAfter) {
        this.cancelAfter = cancelAfter;
    }

    public Duration getFollowUpAfter() {
        return followUpAfter;
    }

    public void setFollowUpAfter(Duration followUpAfter) {
        this.followUpAfter = followUpAfter;
    }
}
