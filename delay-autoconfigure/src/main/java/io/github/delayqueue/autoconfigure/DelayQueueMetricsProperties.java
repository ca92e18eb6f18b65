package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the delay queue's Micrometer meters, under {@code delay.metrics.*}.
 */
@ConfigurationProperties("delay.metrics")
public class DelayQueueMetricsProperties {

    /**
     * How often the gauges (tasks pending by status, overdue, dead letters, time index size) are read from the
     * database and Redis; a scrape reads the last values and never queries. Shorter is fresher and costs a few
     * index-range counts per instance per interval.
     */
    private Duration refreshInterval = Duration.ofSeconds(15);

    public Duration getRefreshInterval() {
        return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
    }
}
