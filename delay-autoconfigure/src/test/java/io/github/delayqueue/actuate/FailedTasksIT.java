package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.testservices.TestServices;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a real database and Redis, a handler that throws, a type no handler serves and a payload that does not bind each
 * leave a log line and a count in {@code delay.task.failures}, not only a {@code last_error} in the table.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailedTasksIT {

    /** What another application stored under "obs.order". */
    record Mail(String to) {
    }

    private static double failures(MeterRegistry registry, String type, String reason, String exception) {
        Counter counter = registry.find("delay.task.failures")
            .tags("type", type, "reason", reason, "exception", exception)
            .counter();
        return counter == null ? 0 : counter.count();
    }

    private static List<String> lines(CapturedOutput output, String level, String containing) {
        return output.getOut().lines().filter(line -> line.contains(" " + level + " ") && line.contains(containing))
            .toList();
    }

    @Test
    void aThrowingHandlerAndAnUnbindablePayloadAreLoggedAndCountedAndAnUnknownTypeWaits(CapturedOutput output) {
        try (ConfigurableApplicationContext context = Contexts.start(WebApplicationType.NONE,
                TestServices.newDatabase().springProperties())) {
            DelayQueue queue = context.getBean(DelayQueue.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            long throwing = queue.schedule("obs.fail", "f", Duration.ZERO); // 2 attempts, 100 ms apart
            long unknown = queue.schedule("obs.nobody", "u", Duration.ZERO);
            long unbindable = queue.schedule("obs.order", new Mail("ada@example.org"), Duration.ZERO);

            await().atMost(15, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                for (long id : List.of(throwing)) {
                    assertThat(queue.find(id).map(TaskView::status)).as("task %d", id).contains(TaskStatus.FAILED);
                }
                assertThat(queue.find(unbindable).map(TaskView::status)).contains(TaskStatus.PARKED);
            });
            assertThat(queue.find(unbindable).orElseThrow().lastError()).contains("'id'");

            assertThat(failures(registry, "obs.fail", "handler", "IllegalStateException")).isEqualTo(2);
            assertThat(queue.find(unknown).orElseThrow().status().isPending()).as("waits for its handler").isTrue();
            assertThat(failures(registry, "obs.nobody", "no-handler", "none")).isZero();
            assertThat(failures(registry, "obs.order", "binding", "PayloadBindingException")).isEqualTo(1);

            assertThat(lines(output, "WARN", "'obs.fail'")).singleElement().asString()
                .contains(String.valueOf(throwing), "attempt 1 of 2", "IllegalStateException: boom f");
            assertThat(lines(output, "ERROR", "'obs.fail'")).singleElement().asString()
                .contains(String.valueOf(throwing), "attempt 2 of 2", "dead-lettered");
            assertThat(lines(output, "WARN", "'obs.nobody'")).as("at schedule").singleElement().asString()
                .contains("no @DelayedHandler");
            assertThat(lines(output, "ERROR", "'obs.nobody'")).isEmpty();
            assertThat(lines(output, "ERROR", "'obs.order'")).singleElement().asString()
                .contains(String.valueOf(unbindable), "is parked (PARKED)", "'id'");
        }
    }
}
