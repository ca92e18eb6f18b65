package io.github.delayqueue.bench;

import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * One instance of the benchmarked application: the starter as a user gets it, plus a no-op handler that records
 * when each task starts, and (unless {@code bench.client-counts=false}) counters on what the instance sends to the
 * database and Redis. {@link BenchRun} starts several of these in one JVM.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableDelayQueue
public class BenchApp {

    static final String TYPE = "bench.noop";

    /** Tasks run before the measurement, to warm the JIT and the pools; counted, not recorded. */
    static final String WARMUP_TYPE = "bench.warmup";

    /** What the run hands each instance: where to record, and which instance it is. */
    record Slot(Recorder recorder, int instance, java.util.concurrent.atomic.AtomicInteger warmups) {
    }

    @Bean
    NoopHandler benchNoopHandler(Slot slot) {
        return new NoopHandler(slot);
    }

    @Bean
    static BeanPostProcessor benchStatementCounter(Environment environment) {
        boolean enabled = environment.getProperty("bench.client-counts", Boolean.class, true);
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                return enabled && bean instanceof DataSource dataSource ? ClientCounters.wrap(dataSource) : bean;
            }
        };
    }

    @Bean
    ClientResourcesBuilderCustomizer benchRedisCommandCounter(Environment environment) {
        boolean enabled = environment.getProperty("bench.client-counts", Boolean.class, true);
        return builder -> {
            if (enabled) {
                builder.commandLatencyRecorder(ClientCounters.REDIS);
            }
        };
    }

    /** Does nothing but record the start: what is measured is the queue, not the work. */
    static class NoopHandler {

        private final Recorder recorder;

        private final int instance;

        private final java.util.concurrent.atomic.AtomicInteger warmups;

        NoopHandler(Slot slot) {
            this.recorder = slot.recorder();
            this.instance = slot.instance();
            this.warmups = slot.warmups();
        }

        @DelayedHandler(type = TYPE)
        void run(Integer slot, TaskContext context) {
            recorder.started(instance, slot, context.dueAt().toEpochMilli(), context.attempt());
        }

        @DelayedHandler(type = WARMUP_TYPE)
        void warmup(Integer slot) {
            warmups.incrementAndGet();
        }
    }
}
