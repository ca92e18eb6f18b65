package io.github.delayqueue.bench;

import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.QueueClock;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * One instance of the benchmarked application: the starter as a user gets it, plus a handler that records when
 * each task starts (and works as long as the plan says, mixed-durations), and (unless
 * {@code bench.client-counts=false}) counters on what the instance sends to the database and Redis.
 * {@link Instances} starts several of these in one JVM.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableDelayQueue
public class BenchApp {

    static final String TYPE = "bench.noop";

    /** Tasks run before the measurement, to warm the JIT and the pools; counted, not recorded. */
    static final String WARMUP_TYPE = "bench.warmup";

    /** The bulk workload's tasks due days ahead, which its bulk operations move and cancel; none should run. */
    static final String BULK_TYPE = "bench.bulk";

    /** What the run hands each instance: where to record, and which instance it is. */
    record Slot(Recorder recorder, int instance, java.util.concurrent.atomic.AtomicInteger warmups) {
    }

    @Bean
    BenchHandler benchHandler(Slot slot, DelayQueueRuntime runtime) {
        return new BenchHandler(slot, runtime.clock());
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

    /**
     * Records the start on the wall clock and the instance's queue clock, first thing, then works as long as the
     * plan says (nothing, except in mixed-durations): what is measured is the queue, not the work.
     */
    static class BenchHandler {

        private final Recorder recorder;

        private final int instance;

        private final java.util.concurrent.atomic.AtomicInteger warmups;

        private final QueueClock clock;

        BenchHandler(Slot slot, QueueClock clock) {
            this.recorder = slot.recorder();
            this.instance = slot.instance();
            this.warmups = slot.warmups();
            this.clock = clock;
        }

        @DelayedHandler(type = TYPE)
        void run(Integer slot, TaskContext context) throws InterruptedException {
            long wall = Recorder.wallMicros();
            long queue = clock.nowMicros();
            int work = recorder.started(instance, slot, context.dueAt().toEpochMilli(), context.attempt(), wall,
                    queue);
            if (work > 0) {
                Thread.sleep(work);
            }
        }

        @DelayedHandler(type = BULK_TYPE)
        void bulk(Integer slot) {
            recorder.bulkStarted();
        }

        @DelayedHandler(type = WARMUP_TYPE)
        void warmup(Integer slot) {
            warmups.incrementAndGet();
        }
    }
}
