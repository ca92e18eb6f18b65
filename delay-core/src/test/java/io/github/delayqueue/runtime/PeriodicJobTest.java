package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class PeriodicJobTest {

    @Test
    void aRunThatThrowsAnErrorDoesNotCancelTheNextRuns() {
        AtomicInteger runs = new AtomicInteger();
        PeriodicJob job = new PeriodicJob(TestScheduler.SHARED, "test job", Duration.ofMillis(20)) {
            @Override
            void runOnce() {
                int run = runs.incrementAndGet();
                if (run == 1) {
                    throw new StackOverflowError("an Error in the first run");
                }
                if (run == 2) {
                    throw new IllegalStateException("an exception in the second");
                }
            }
        };
        job.start();
        try {
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(runs).hasValueGreaterThan(4));
        }
        finally {
            job.stop();
        }
        assertThat(job.isRunning()).isFalse();
        int stopped = runs.get();
        await().during(100, TimeUnit.MILLISECONDS).atMost(1, TimeUnit.SECONDS)
            .untilAsserted(() -> assertThat(runs.get()).isLessThanOrEqualTo(stopped + 1));
    }
}
