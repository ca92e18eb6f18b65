package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code schedule()} call waits for its row's commit, never for Redis: the runtime hands committed rows to the
 * index off the caller's thread ({@link IndexWrites}), so an index that hangs (Lettuce waits up to its command timeout,
 * 60 s by default) holds no caller, inside or outside a transaction, and the rows reach the index once it answers.
 */
class ScheduleIndexingTest {

    @Test
    void callersReturnWhileTheIndexHangsAndTheirTasksAreIndexedOnceItAnswers() throws Exception {
        HangingTimeIndex index = new HangingTimeIndex();
        InMemoryTaskStore store = new InMemoryTaskStore();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try (DelayQueueRuntime runtime = DelayQueueRuntime.builder(store, new InMemoryTaskInspector(store))
            .timeIndex(index)
            .runsTasks(false)
            .build()) {
            List<Future<Long>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                calls.add(callers.submit(() -> runtime.queue().schedule("t", null, Duration.ofSeconds(5))));
            }
            // what the application's transaction does after its commit happens on the committing thread, too
            calls.add(callers.submit(() -> inCommittedTransaction(
                    () -> runtime.queue().schedule("t", null, Duration.ofSeconds(5)))));
            for (Future<Long> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).as("a call returned while the index hung").isPositive();
            }
            assertThat(index.inner.size(0)).as("nothing indexed yet: the index hangs").isZero();

            index.answer.countDown();
            await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(index.inner.size(0)).isEqualTo(calls.size()));
        }
        finally {
            index.answer.countDown();
            callers.shutdownNow();
        }
    }

    private static long inCommittedTransaction(LongSupplier work) {
        TransactionSynchronizationManager.initSynchronization();
        TransactionSynchronizationManager.setActualTransactionActive(true);
        try {
            long id = work.getAsLong();
            TransactionSynchronizationUtils.triggerAfterCommit();
            return id;
        }
        finally {
            TransactionSynchronizationManager.setActualTransactionActive(false);
            TransactionSynchronizationManager.clearSynchronization();
        }
    }
}
