package io.github.delayqueue.bench;

import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.boot.autoconfigure.AutoConfigurationMetadata;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Leaves out the actuator's auto-configuration (meter registries, observations, health, endpoints, and the queue's
 * own meters, health indicator and endpoint) unless the instance runs with {@code bench.actuator=true}. The jar
 * carries the actuator for the soak's gauges, health and endpoint; the other workloads measure the queue as it runs
 * without it, as all results before the soak did, so a timer per task and a gauge refresh every 15 s do not move
 * their numbers.
 */
public final class ActuatorFilter implements AutoConfigurationImportFilter, EnvironmentAware {

    private boolean actuator = true;

    @Override
    public void setEnvironment(Environment environment) {
        this.actuator = environment.getProperty("bench.actuator", Boolean.class, true);
    }

    @Override
    public boolean[] match(String[] autoConfigurationClasses, AutoConfigurationMetadata metadata) {
        boolean[] match = new boolean[autoConfigurationClasses.length];
        for (int i = 0; i < match.length; i++) {
            String name = autoConfigurationClasses[i];
            match[i] = actuator || name == null || !isActuator(name);
        }
        return match;
    }

    static boolean isActuator(String autoConfiguration) {
        return autoConfiguration.startsWith("org.springframework.boot.actuate.")
                || autoConfiguration.startsWith("org.springframework.boot.health.")
                || autoConfiguration.startsWith("org.springframework.boot.micrometer.")
                || autoConfiguration.contains(".health.") || autoConfiguration.contains(".metrics.")
                || autoConfiguration.contains(".observation.")
                || autoConfiguration.startsWith("io.github.delayqueue.autoconfigure.DelayQueueMetrics")
                || autoConfiguration.startsWith("io.github.delayqueue.autoconfigure.DelayQueueHealth")
                || autoConfiguration.startsWith("io.github.delayqueue.autoconfigure.DelayQueueEndpoint")
                || autoConfiguration.startsWith("io.github.delayqueue.autoconfigure.DelayQueueObservation");
    }
}
