package io.github.delayqueue.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.actuate.QueueGauges;

import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ApplicationContext;

/**
 * What an operator's tools make an instance do, timed: one refresh of the gauges (what the instance does every
 * {@code delay.metrics.refresh-interval} on its own), one health check ({@code GET /actuator/health}) and one read
 * of the {@code delayqueue} endpoint ({@code GET /actuator/delayqueue}). No web server runs, so the beans are called
 * directly: the HTTP layer adds the same little to each, the queries are the cost. A bean that is not there (the
 * instance runs without the actuator) is reported as missing.
 */
final class Probes {

    private final QueueGauges gauges;

    private final DelayQueueHealthIndicator health;

    private final DelayQueueEndpoint endpoint;

    Probes(ApplicationContext context) {
        this.gauges = context.getBeanProvider(QueueGauges.class).getIfAvailable();
        this.health = context.getBeanProvider(DelayQueueHealthIndicator.class).getIfAvailable();
        this.endpoint = context.getBeanProvider(DelayQueueEndpoint.class).getIfAvailable();
    }

    /** Runs each once, one after the other; milliseconds each, and what failed. */
    Map<String, Object> time() {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("at_wall_ms", System.currentTimeMillis());
        time(result, "gauges_refresh", gauges == null ? null : () -> {
            gauges.refresh();
            return null;
        });
        time(result, "health", health == null ? null : () -> {
            Health answer = health.health(true);
            return answer.getStatus().getCode().equals("UP") ? null : answer.getStatus() + " " + answer.getDetails();
        });
        time(result, "endpoint", endpoint == null ? null : () -> {
            endpoint.queue();
            return null;
        });
        return result;
    }

    private interface Probe {
        /** Runs the probe; returns a problem to report, or null. */
        String run();
    }

    private static void time(Map<String, Object> result, String name, Probe probe) {
        if (probe == null) {
            result.put(name + "_ms", null);
            result.put(name + "_error", "missing (no actuator in the instance)");
            return;
        }
        long start = System.nanoTime();
        String problem;
        try {
            problem = probe.run();
        }
        catch (RuntimeException ex) {
            problem = ex.toString();
        }
        result.put(name + "_ms", Stats.round((System.nanoTime() - start) / 1e6));
        if (problem != null) {
            result.put(name + "_error", problem.length() > 300 ? problem.substring(0, 300) + "..." : problem);
        }
    }
}
