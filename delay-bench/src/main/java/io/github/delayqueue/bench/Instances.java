package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.QueueClock;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The N Spring contexts of one run, each the starter as a user configures it (plus what the run and the command line
 * set), on the run's database and key prefix. Instance 0 is also the producer.
 */
final class Instances implements AutoCloseable {

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    private final Map<String, String> properties;

    /**
     * @param extra what the workload sets (after the run's settings, before the command line's, which win)
     */
    Instances(BenchOptions options, Servers servers, RunSpec spec, String database, String prefix,
            Map<String, String> extra) {
        this.properties = properties(options, servers, spec, database, prefix, extra);
    }

    /** Every property an instance starts with, in the order they are applied (later ones win). */
    static Map<String, String> properties(BenchOptions options, Servers servers, RunSpec spec, String database,
            String prefix, Map<String, String> extra) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("spring.datasource.url", servers.urlFor(database));
        p.put("spring.datasource.username", servers.user);
        p.put("spring.datasource.password", servers.password);
        if (spec.cluster()) {
            p.put("spring.data.redis.cluster.nodes", String.join(",", servers.redisClusterNodes));
            p.put("delay.redis.shards", Integer.toString(options.shards));
        }
        else {
            p.put("spring.data.redis.url", servers.redisUrl);
        }
        p.put("spring.data.redis.timeout", "2s"); // as the README advises; a user's --spring.* wins
        p.put("spring.main.banner-mode", "off");
        p.put("spring.main.log-startup-info", "false");
        p.put("spring.jmx.enabled", "false");
        p.put("logging.level.root", "WARN");
        p.put("delay.mode", spec.mode());
        p.put("delay.redis.key-prefix", prefix);
        p.put("bench.client-counts", Boolean.toString(options.clientCounts(spec.workload())));
        boolean actuator = options.actuator(spec.workload());
        p.put("bench.actuator", Boolean.toString(actuator));
        if (actuator) {
            // the endpoint exists only when exposed; no web server runs, the benchmark calls the bean
            p.put("management.endpoints.web.exposure.include", "health,delayqueue");
        }
        if (options.threads != null) {
            p.put("delay.worker.threads", Integer.toString(options.threads));
        }
        if (options.prefetch != null) {
            p.put("delay.worker.prefetch", Integer.toString(options.prefetch));
        }
        if (options.batchSize != null) {
            p.put("delay.worker.batch-size", Integer.toString(options.batchSize));
        }
        if (spec.workload().equals("burst") && options.clusterLimit > 0) {
            p.put("bench.cluster-limit", Integer.toString(options.clusterLimit));
        }
        if (spec.workload().equals("mixed")) {
            p.put("delay.hybrid.threshold", options.threshold.toMillis() + "ms");
            p.put("delay.hybrid.migration-interval", options.migrationInterval.toMillis() + "ms");
        }
        p.putAll(extra);
        options.properties.forEach((name, value) -> {
            if (!name.equals("spring.datasource.url")) {
                p.put(name, value);
            }
        });
        // the variant is what the run compares, so it wins over the command line
        p.putAll(spec.variantProperties());
        return p;
    }

    void start(BenchApp.Slot slot) {
        List<String> list = new ArrayList<>();
        properties.forEach((name, value) -> list.add(name + "=" + value));
        contexts.add(new SpringApplicationBuilder(BenchApp.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .properties(list.toArray(String[]::new))
            .initializers(ctx -> ctx.getBeanFactory().registerSingleton("benchSlot", slot))
            .run());
    }

    int size() {
        return contexts.size();
    }

    ConfigurableApplicationContext get(int instance) {
        return contexts.get(instance);
    }

    DelayQueue queue() {
        return contexts.get(0).getBean(DelayQueue.class);
    }

    QueueClock clock() {
        return contexts.get(0).getBean(DelayQueueRuntime.class).clock();
    }

    QueueClock clock(int instance) {
        return contexts.get(instance).getBean(DelayQueueRuntime.class).clock();
    }

    /** Stops the instances, last first; a failure to close one does not keep the others open. */
    @Override
    public void close() {
        for (int i = contexts.size() - 1; i >= 0; i--) {
            try {
                contexts.get(i).close();
            }
            catch (RuntimeException ex) {
                System.err.println("[bench] closing instance " + i + " failed: " + ex);
            }
        }
        contexts.clear();
    }
}
