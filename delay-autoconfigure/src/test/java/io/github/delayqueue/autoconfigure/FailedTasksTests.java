package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.autoconfigure.QueueContexts.InMemoryInspection;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A failure is never silent: the engine on the in-memory store logs every failed attempt (a handler that throws, a
 * type no handler serves, a payload that does not bind) and counts it by type, reason and exception; scheduling a
 * type no handler on an instance that runs tasks serves is logged once per type.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailedTasksTests {

    private final ApplicationContextRunner runner = QueueContexts.queue()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                DelayQueueMetricsAutoConfiguration.class))
        .withUserConfiguration(InMemoryInspection.class)
        .withPropertyValues("delay.worker.shutdown-timeout=2s");

    /** A handler's payload. */
    record Order(Long id, String customer) {
    }

    /** Another record, stored under the handler's type by mistake. */
    record Mail(String to) {
    }

    static class Handlers {

        @DelayedHandler(type = "fail.always", maxAttempts = 2, backoff = "20ms")
        void fail(String payload) {
            throw new IllegalStateException("boom " + payload);
        }

        @DelayedHandler(type = "order.typed")
        void order(Order order) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class WithHandlers {

        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    private static List<String> lines(CapturedOutput output, String level, String containing) {
        return output.getOut().lines().filter(line -> line.contains(" " + level + " ") && line.contains(containing))
            .toList();
    }

    private static double failures(MeterRegistry registry, String type, String reason, String exception) {
        Counter counter = registry.find("delay.task.failures")
            .tags("type", type, "reason", reason, "exception", exception)
            .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void everyFailedAttemptIsLoggedAndCountedByTypeReasonAndException(CapturedOutput output) {
        runner.withUserConfiguration(WithHandlers.class).withPropertyValues("delay.worker.enabled=true")
            .run(context -> {
                assertThat(context).hasNotFailed();
                DelayQueue queue = context.getBean(DelayQueue.class);
                long failing = queue.schedule(TaskRequest.of("fail.always", "x").key("k-fail").build());
                long unknown = queue.schedule("nobody.serves.this", "a", Duration.ZERO);
                long unknownToo = queue.schedule("nobody.serves.this", "b", Duration.ZERO);
                long notAnOrder = queue.schedule("order.typed", "not an order", Duration.ZERO);
                long mail = queue.schedule("order.typed", new Mail("ada@example.org"), Duration.ZERO);

                InMemoryTaskStore store = context.getBean(InMemoryTaskStore.class);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    for (long id : List.of(failing)) {
                        assertThat(store.find(id)).as("task %d", id)
                            .hasValueSatisfying(task -> assertThat(task.status()).isEqualTo(TaskStatus.FAILED));
                    }
                    for (long id : List.of(notAnOrder, mail)) {
                        assertThat(store.find(id)).as("task %d, whose payload does not bind", id)
                            .hasValueSatisfying(task -> assertThat(task.status()).isEqualTo(TaskStatus.PARKED));
                    }
                });

                assertThat(lines(output, "WARN", "'fail.always'")).as("attempt 1 of 2, retried").singleElement()
                    .asString()
                    .contains(String.valueOf(failing), "'k-fail'", "attempt 1 of 2", "IllegalStateException: boom x");
                assertThat(lines(output, "ERROR", "'fail.always'")).as("attempt 2 of 2, dead-lettered")
                    .singleElement().asString()
                    .contains(String.valueOf(failing), "attempt 2 of 2", "dead-lettered");
                for (long id : List.of(unknown, unknownToo)) {
                    assertThat(store.find(id)).as("no handler here: task %d waits", id)
                        .hasValueSatisfying(task -> assertThat(task.status().isPending()).isTrue());
                }
                assertThat(lines(output, "ERROR", "'nobody.serves.this'")).isEmpty();
                assertThat(lines(output, "WARN", "'nobody.serves.this'")).as("scheduled twice, warned once")
                    .singleElement().asString().contains("no @DelayedHandler", "waits");
                assertThat(lines(output, "ERROR", "'order.typed'")).hasSize(2)
                    .anySatisfy(line -> assertThat(line).contains(String.valueOf(notAnOrder)))
                    .anySatisfy(line -> assertThat(line).contains(String.valueOf(mail)));

                MeterRegistry registry = context.getBean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                    assertThat(failures(registry, "fail.always", "handler", "IllegalStateException")).isEqualTo(2);
                    assertThat(failures(registry, "order.typed", "binding", "PayloadBindingException"))
                        .isEqualTo(2);
                });
                assertThat(failures(registry, "nobody.serves.this", "no-handler", "none")).isZero();
            });
    }

    @Test
    void aProducerOnlyInstanceDoesNotWarnOfTypesItHasNoHandlerFor(CapturedOutput output) {
        runner.withUserConfiguration(WithHandlers.class).run(context -> {
            context.getBean(DelayQueue.class).schedule("served.elsewhere", "a", Duration.ofHours(1));
        });
        assertThat(output.getOut()).doesNotContain("served.elsewhere");
    }

    /** A task scheduled while the context starts, before the bean with its handler exists. */
    record EarlyTask(long id) {
    }

    static class LateHandlers {

        @DelayedHandler(type = "late.handler")
        void handle(String payload) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class SchedulesWhileStarting {

        @Bean
        EarlyTask earlyTask(DelayQueue queue) {
            return new EarlyTask(queue.schedule("late.handler", "x", Duration.ofHours(1)));
        }

        @Bean
        LateHandlers lateHandlers() {
            return new LateHandlers();
        }
    }

    @Test
    void aTypeScheduledWhileStartingIsCheckedOnceEveryHandlerIsRegistered(CapturedOutput output) {
        runner.withUserConfiguration(SchedulesWhileStarting.class).withPropertyValues("delay.worker.enabled=true")
            .run(context -> {
                assertThat(context).hasNotFailed();
                context.getBean(DelayQueue.class).schedule("late.unserved", "y", Duration.ofHours(1));
            });
        assertThat(output.getOut()).doesNotContain("'late.handler'");
        assertThat(lines(output, "WARN", "'late.unserved'")).hasSize(1);
    }
}
