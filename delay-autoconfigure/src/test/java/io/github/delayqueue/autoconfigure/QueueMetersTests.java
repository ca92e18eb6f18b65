package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.autoconfigure.QueueContexts.InMemoryInspection;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * Every meter and the observation the queue makes in one run of each kind of task (a success, a handler failure, a
 * payload that does not bind, a type without a handler, a cancel), as an application with the actuator has them: the
 * task type has one tag name everywhere, and each handler run has one timer, the observation's where handlers are
 * observed and the queue's own otherwise.
 */
class QueueMetersTests {

    private static final Set<String> TYPES = Set.of("meters.ok", "meters.fail", "meters.unbound", "meters.orphan");

    /** Boot's metrics without its observation support: no {@code ObservationRegistry}. */
    private final ApplicationContextRunner metrics = QueueContexts.queue()
        .withConfiguration(AutoConfigurations.of(DelayQueueMetricsAutoConfiguration.class,
                DelayQueueObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
        .withUserConfiguration(Handlers.class, InMemoryInspection.class)
        .withPropertyValues("delay.worker.enabled=true", "delay.worker.shutdown-timeout=1s");

    /** Both, as with spring-boot-starter-actuator: handlers run in observations that Boot's meter handler times. */
    private final ApplicationContextRunner observed = metrics
        .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
        .withBean(RecordedObservations.class, RecordedObservations::new);

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class Handlers {

        final AtomicInteger runs = new AtomicInteger();

        @DelayedHandler(type = "meters.ok")
        void ok(String payload) {
            runs.incrementAndGet();
        }

        @DelayedHandler(type = "meters.fail", maxAttempts = 1)
        void fail(String payload) {
            runs.incrementAndGet();
            throw new IllegalStateException("fails for the test");
        }

        /** A payload that is not an object does not bind to it: the handler never runs. */
        @DelayedHandler(type = "meters.unbound")
        void unbound(Order order) {
            runs.incrementAndGet();
        }

        record Order(long id) {
        }
    }

    /** Every observation that stopped, by name, with its low-cardinality keys. */
    static class RecordedObservations implements ObservationHandler<Observation.Context> {

        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }
    }

    @Test
    void everyMeterAndObservationTagsTheTaskTypeAsType() {
        observed.run(context -> {
            runEveryKindOfTask(context);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            RecordedObservations observations = context.getBean(RecordedObservations.class);

            // what names a task type, by meter or observation: "delay.tasks.scheduled [type]", ...
            Map<String, Set<String>> typeKeys = new TreeMap<>();
            for (Meter meter : registry.getMeters()) {
                if (meter.getId().getName().startsWith("delay.")) {
                    typeKeys.put("meter " + meter.getId().getName(), meter.getId()
                        .getTags()
                        .stream()
                        .filter(tag -> TYPES.contains(tag.getValue()))
                        .map(Tag::getKey)
                        .collect(Collectors.toCollection(TreeSet::new)));
                }
            }
            for (Observation.Context observation : observations.stopped) {
                typeKeys.merge("observation " + observation.getName(), observation.getLowCardinalityKeyValues()
                    .stream()
                    .filter(key -> TYPES.contains(key.getValue()))
                    .map(KeyValue::getKey)
                    .collect(Collectors.toCollection(TreeSet::new)), (a, b) -> {
                        a.addAll(b);
                        return a;
                    });
            }
            Set<String> keys = typeKeys.values()
                .stream()
                .flatMap(Set::stream)
                .collect(Collectors.toCollection(TreeSet::new));

            assertThat(typeKeys).as("what each meter and observation calls the task type")
                .containsKeys("meter delay.tasks.scheduled", "meter delay.tasks.completed", "meter delay.task.failures",
                        "meter delay.task.lateness", "meter delay.task.execution",
                        "observation delay.task.execution");
            assertThat(keys).as("tag names of the task type in %s", typeKeys).containsExactly("type");
        });
    }

    @Test
    void anObservedRunHasTheObservationsTimerOnly() {
        observed.run(context -> {
            runEveryKindOfTask(context);

            assertThat(runTimers(context)).containsOnly(entry("delay.task.execution", handlerRuns(context)));
        });
    }

    @Test
    void withoutObservationsTheQueueTimesTheRunItself() {
        metrics.run(context -> {
            runEveryKindOfTask(context);

            assertThat(runTimers(context)).containsOnly(entry("delay.task.duration", handlerRuns(context)));
        });
    }

    /**
     * Schedules one task of each kind and waits until each has ended; a type without a handler waits, pending, a
     * payload that does not bind is parked.
     */
    private static void runEveryKindOfTask(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        DelayQueue queue = context.getBean(DelayQueue.class);
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        queue.schedule("meters.ok", "a", Duration.ZERO);
        queue.schedule("meters.fail", "b", Duration.ZERO);
        queue.schedule("meters.unbound", "not an object", Duration.ZERO);
        queue.schedule("meters.orphan", "c", Duration.ZERO);
        queue.cancel(queue.schedule("meters.ok", "d", Duration.ofHours(1)));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(completed(registry, "meters.ok", "success")).isEqualTo(1);
            assertThat(completed(registry, "meters.ok", "cancelled")).isEqualTo(1);
            assertThat(completed(registry, "meters.fail", "failed")).isEqualTo(1);
            assertThat(completed(registry, "meters.unbound", "parked")).isEqualTo(1);
        });
        assertThat(completed(registry, "meters.orphan", "failed")).as("never claimed: no handler here").isZero();
    }

    private static double completed(MeterRegistry registry, String type, String outcome) {
        var counter = registry.find("delay.tasks.completed").tags("type", type, "outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    /** Runs recorded by each timer of the queue's but lateness (which times the wait before a run, not the run). */
    private static Map<String, Long> runTimers(AssertableApplicationContext context) {
        return context.getBean(MeterRegistry.class)
            .getMeters()
            .stream()
            .filter(meter -> meter instanceof Timer && meter.getId().getName().startsWith("delay.")
                    && !meter.getId().getName().equals("delay.task.lateness"))
            .collect(Collectors.groupingBy(meter -> meter.getId().getName(), TreeMap::new,
                    Collectors.summingLong(meter -> ((Timer) meter).count())));
    }

    private static long handlerRuns(AssertableApplicationContext context) {
        long runs = context.getBean(Handlers.class).runs.get();
        assertThat(runs).as("ok and fail ran, unbound and orphan did not").isEqualTo(2);
        return runs;
    }
}
