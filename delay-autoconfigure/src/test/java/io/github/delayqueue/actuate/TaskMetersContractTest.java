package io.github.delayqueue.actuate;

import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.test.TaskEventsContract;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@link TaskEventsContract} on {@link TaskMeters}, on a Prometheus registry: the strictest of the common ones, which
 * refuses a meter name registered again with other tag keys.
 */
class TaskMetersContractTest extends TaskEventsContract {

    @Override
    protected TaskEvents createEvents() {
        return new TaskMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }
}
