package io.github.delayqueue.bench;

import javax.sql.DataSource;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.QueueClock;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
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

    /**
     * The burst's second type with {@code --cluster-limit N}: half the tasks, held to {@code clusterConcurrency = N}
     * ({@link BenchHandler#limited}); the other half stay {@link #TYPE}, without a limit.
     */
    static final String LIMITED_TYPE = "bench.limited";

    /** Tasks run before the measurement, to warm the JIT and the pools; counted, not recorded. */
    static final String WARMUP_TYPE = "bench.warmup";

    /** The bulk workload's tasks due days ahead, which its bulk operations move and cancel; none should run. */
    static final String BULK_TYPE = "bench.bulk";

    /** What the run hands each instance: where to record, and which instance it is. */
    record Slot(Recorder recorder, int instance, java.util.concurrent.atomic.AtomicInteger warmups) {
    }

    @Bean
    BenchHandler benchHandler(Slot slot, ObjectProvider<DelayQueueRuntime> runtime) {
        return new BenchHandler(slot, runtime);
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

        private final ObjectProvider<DelayQueueRuntime> runtime;

        /** The runtime's, once it is built: the runtime's customizer needs this handler before. */
        private volatile @Nullable QueueClock clock;

        BenchHandler(Slot slot, ObjectProvider<DelayQueueRuntime> runtime) {
            this.recorder = slot.recorder();
            this.instance = slot.instance();
            this.warmups = slot.warmups();
            this.runtime = runtime;
        }

        @DelayedHandler(type = TYPE)
        void run(Integer slot, TaskContext context) throws InterruptedException {
            long wall = Recorder.wallMicros();
            QueueClock queueClock = clock;
            if (queueClock == null) {
                queueClock = runtime.getObject().clock();
                clock = queueClock;
            }
            long queue = queueClock.nowMicros();
            int work = recorder.started(instance, slot, context.dueAt().toEpochMilli(), context.attempt(), wall,
                    queue);
            if (work > 0) {
                Thread.sleep(work);
            }
        }

        /** As {@link #run}, held to {@code bench.cluster-limit} (the burst's {@code --cluster-limit}; 0: none). */
        @DelayedHandler(type = LIMITED_TYPE, clusterConcurrency = "${bench.cluster-limit:0}")
        void limited(Integer slot, TaskContext context) throws InterruptedException {
            run(slot, context);
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
