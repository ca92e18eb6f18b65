package io.github.delayqueue.actuate;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.TestScheduler;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class QueueGaugesTest {

    @Test
    void anErrorInOneRefreshDoesNotStopTheNextOnes() {
        AtomicInteger reads = new AtomicInteger();
        TaskInspector inspector = (TaskInspector) Proxy.newProxyInstance(TaskInspector.class.getClassLoader(),
                new Class<?>[] { TaskInspector.class }, (proxy, method, args) -> switch (method.getName()) {
                    case "countByStatus" -> {
                        if (reads.incrementAndGet() == 1) {
                            throw new NoClassDefFoundError("an Error in the first refresh");
                        }
                        yield new EnumMap<TaskStatus, TaskInspector.Count>(
                                Map.of(TaskStatus.QUEUED, TaskInspector.Count.exact(3)));
                    }
                    case "overdue" -> new TaskInspector.Overdue(TaskInspector.Count.exact(0), null);
                    default -> throw new AssertionError("unexpected call: " + method.getName());
                });
        DelayQueueRuntime runtime = DelayQueueRuntime.builder(new InMemoryTaskStore(), inspector)
            .runsTasks(false)
            .scheduler(TestScheduler.SHARED)
            .build();
        QueueGauges gauges = new QueueGauges(runtime, Duration.ofMillis(20));
        gauges.start();
        try {
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(gauges.lastRefresh()).isNotNull());
            assertThat(reads).hasValueGreaterThan(1);
        }
        finally {
            gauges.stop();
        }
    }
}
