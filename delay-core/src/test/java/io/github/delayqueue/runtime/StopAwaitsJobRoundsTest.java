package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stop returns only once the periodic jobs' rounds under way have ended (up to a bound): the context closes the
 * DataSource right after, and a purge statement it closed under failed with "Connection is closed" and a warning, at
 * every shutdown that fell in a purge (the soak of issue 19, where a backlog is purged back to back).
 */
class StopAwaitsJobRoundsTest {

    @Test
    void aStopWaitsForThePurgeStatementUnderWay() throws Exception {
        CountDownLatch purging = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicBoolean statementEnded = new AtomicBoolean();
        InMemoryTaskStore store = new InMemoryTaskStore() {
            @Override
            public long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
                if (purging.getCount() > 0) {
                    purging.countDown();
                    // the statement is on its way when the stop comes, and takes a while longer
                    while (!stopping.get()) {
                        Thread.onSpinWait();
                    }
                    sleep(300);
                    statementEnded.set(true);
                }
                return super.purge(changedBefore, batchSize, budgetMillis);
            }
        };
        DelayQueueRuntime runtime = DelayQueueRuntime.builder(store, new InMemoryTaskInspector(store))
            .retention(TaskStatus.SUCCEEDED, Duration.ofMinutes(1))
            .purge(Duration.ofMillis(50), 100)
            .build();
        try {
            runtime.start();
            assertThat(purging.await(30, TimeUnit.SECONDS)).as("a purge round started").isTrue();
            stopping.set(true);
            runtime.stop();

            assertThat(statementEnded).as("the purge's statement ended before the stop returned").isTrue();
        }
        finally {
            stopping.set(true);
            runtime.close();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
