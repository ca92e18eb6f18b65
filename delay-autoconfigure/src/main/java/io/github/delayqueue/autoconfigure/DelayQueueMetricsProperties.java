package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of the delay queue's Micrometer meters, under {@code delay.metrics.*}; checked while Spring Boot
 * binds it, like {@link DelayQueueProperties}.
 */
@ConfigurationProperties("delay.metrics")
public class DelayQueueMetricsProperties implements Validator {

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

    @Override
    public boolean supports(Class<?> type) {
        return DelayQueueMetricsProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        PropertiesValidator.validate((DelayQueueMetricsProperties) target, errors);
    }
}
