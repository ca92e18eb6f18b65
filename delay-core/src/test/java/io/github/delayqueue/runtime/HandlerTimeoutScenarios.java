package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a handler's timeout does, on a store a subclass gives ({@link #builder()}): the handler is interrupted, the
 * attempt counts as failed with an error naming the timeout, and the task follows its retry policy; a handler that
 * ignores the interrupt is reported, its failure is written once without it, its lease is not renewed any more, and
 * its thread runs nothing else until it returns. Bounds are generous: the timeouts are a few hundred milliseconds, the
 * awaits many seconds.
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class HandlerTimeoutScenarios {

    /** How long the tests wait for what should take a few seconds at most, on a loaded machine. */
    static final Duration PATIENCE = Duration.ofSeconds(30);

    /** Events of the runs, by task id. */
    final Events events = new Events();

    private @Nullable DelayQueueRuntime runtime;

    /**
     * A builder on the store under test, with nothing else set: the scenarios add their handlers, the listener and
     * the settings they need.
     */
    abstract DelayQueueRuntimeBuilder builder();

    DelayQueueRuntime start(DelayQueueRuntimeBuilder builder) {
        DelayQueueRuntime started = builder.listener(events)
            .pollInterval(Duration.ofMillis(50))
            .shutdownTimeout(Duration.ofSeconds(5))
            .build();
        runtime = started;
        started.start();
        return started;
    }

    @AfterEach
    void close() {
        if (runtime != null) {
            runtime.close();
        }
    }

    static TaskView view(DelayQueueRuntime runtime, long id) {
        return runtime.queue().find(id).orElseThrow();
    }

    @Test
    void aHandlerOverItsTimeoutIsInterruptedAndItsTaskRetried() {
        Sleepy sleepy = new Sleepy();
        DelayQueueRuntime runtime = start(builder().handlers(sleepy));
        long id = runtime.queue().schedule("report.build", "q3", Duration.ZERO);

        await().atMost(PATIENCE).until(() -> view(runtime, id).status() == TaskStatus.SUCCEEDED);
        TaskView task = view(runtime, id);
        assertThat(task.attempts()).isEqualTo(2);
        assertThat(sleepy.interrupted).as("the first attempt's sleep of a minute was interrupted").hasValue(1);
        assertThat(task.errors()).singleElement().satisfies(failed -> {
            assertThat(failed.attempt()).isEqualTo(1);
            assertThat(failed.error()).contains("Attempt 1 of 3 failed: java.util.concurrent.TimeoutException: "
                    + "Handler of type 'report.build' ran over its timeout of PT0.3S and was interrupted; it threw "
                    + "java.lang.InterruptedException");
        });
        assertThat(events.failures(id)).containsExactly(TaskEvents.Failure.TIMEOUT);
        assertThat(events.outcomes(id)).containsExactly(TaskEvents.Outcome.RETRY, TaskEvents.Outcome.SUCCESS);
    }

    @Test
    void aHandlerOverItsTimeoutOnItsLastAttemptIsDeadLettered() {
        DelayQueueRuntime runtime = start(builder().handlers(new Sleepy()));
        long id = runtime.queue().schedule(TaskRequest.of("report.build", "q4").maxAttempts(1).build());

        await().atMost(PATIENCE).until(() -> view(runtime, id).status() == TaskStatus.FAILED);
        assertThat(view(runtime, id).lastError()).startsWith("Failed on attempt 1 of 1: "
                + "java.util.concurrent.TimeoutException: Handler of type 'report.build' ran over its timeout of "
                + "PT0.3S");
    }

    @Test
    void theQueueWideTimeoutHoldsHandlersWithoutOneOfTheirOwn(CapturedOutput output) {
        Untimed untimed = new Untimed();
        DelayQueueRuntime runtime = start(builder().handlers(untimed).handlerTimeout(Duration.ofMillis(200)));
        long id = runtime.queue().schedule("export.run", "all", Duration.ZERO);

        await().atMost(PATIENCE).until(() -> view(runtime, id).status() == TaskStatus.SUCCEEDED);
        assertThat(untimed.runs).hasValue(2);
        assertThat(view(runtime, id).errors()).singleElement().satisfies(failed -> assertThat(failed.error())
            .contains("Handler of type 'export.run' ran over its timeout of PT0.2S and was interrupted; it returned "
                    + "after the interrupt"));
    }

    /**
     * The handler swallows its interrupt and goes on for seconds. Its failure is written once, a second after the
     * interrupt, with the thread named; the thread runs no other task (one thread in all) until the handler returns;
     * no renewal of its lease is tried after the failure (it would be refused and logged as a lost claim); and what
     * it returns at last is dropped: the task's retry then runs and succeeds, with one failure in its history.
     */
    @Test
    void aHandlerThatIgnoresItsInterruptIsReportedAndKeepsItsThreadUntilItReturns(CapturedOutput output)
            throws InterruptedException {
        Stubborn stubborn = new Stubborn();
        DelayQueueRuntime runtime = start(builder().handlers(stubborn).workerThreads(1)
            .lease(Duration.ofSeconds(3)));
        long id = runtime.queue().schedule("sync.partner", "p1", Duration.ZERO);
        assertThat(stubborn.started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        long other = runtime.queue().schedule("sync.other", "o1", Duration.ZERO);

        await().atMost(PATIENCE).until(() -> view(runtime, id).status() != TaskStatus.RUNNING);
        TaskView failed = view(runtime, id);
        assertThat(failed.errors()).singleElement().satisfies(error -> assertThat(error.error()).contains(
                "Handler of type 'sync.partner' ran over its timeout of PT0.2S and had not returned 1000 ms after "
                        + "its interrupt (thread " + stubborn.thread + " still runs it"));
        assertThat(events.ignored).containsExactly(id + " on " + stubborn.thread);
        assertThat(output.getOut()).contains("The handler of task " + id + " (type 'sync.partner') ran over its "
                + "timeout of PT0.2S and ignores its interrupt: thread " + stubborn.thread + " still runs it");

        // two lease renewals (a third of 3 s each) while the handler still runs: none may touch its claim
        Thread.sleep(2_500);
        assertThat(stubborn.interrupts.get()).as("interrupted once, at its timeout").isEqualTo(1);
        assertThat(view(runtime, other).status()).as("the one thread is still taken").isNotEqualTo(
                TaskStatus.SUCCEEDED);
        assertThat(view(runtime, id).attempts()).as("its retry waits for the thread too").isEqualTo(1);
        assertThat(output.getOut()).doesNotContain("Lost the claim").doesNotContain("Could not renew task leases");

        stubborn.release.countDown();
        await().atMost(PATIENCE).until(() -> view(runtime, id).status() == TaskStatus.SUCCEEDED
                && view(runtime, other).status() == TaskStatus.SUCCEEDED);
        TaskView done = view(runtime, id);
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(done.errors()).as("the failure written once, the late return dropped").hasSize(1);
        assertThat(events.outcomes(id)).containsExactly(TaskEvents.Outcome.RETRY, TaskEvents.Outcome.SUCCESS);
        assertThat(output.getOut()).contains("The handler of task " + id + " (type 'sync.partner') returned after");
    }

    /** Sleeps a minute on its first attempt (interruptibly), returns at once after. */
    static class Sleepy {

        final AtomicInteger interrupted = new AtomicInteger();

        @DelayedHandler(type = "report.build", timeout = "300ms", backoff = "50ms")
        void build(String quarter, TaskContext context) throws InterruptedException {
            if (context.attempt() == 1) {
                try {
                    Thread.sleep(60_000);
                }
                catch (InterruptedException ex) {
                    interrupted.incrementAndGet();
                    throw ex;
                }
            }
        }
    }

    /** No timeout of its own; on its first attempt it stops quietly when interrupted, as if it had finished. */
    static class Untimed {

        final AtomicInteger runs = new AtomicInteger();

        @DelayedHandler(type = "export.run", backoff = "50ms")
        void export(String what) {
            if (runs.incrementAndGet() == 1) {
                try {
                    Thread.sleep(60_000);
                }
                catch (InterruptedException ex) {
                    // returns normally: still a failed attempt, as it ran over its timeout
                }
            }
        }
    }

    /** Ignores every interrupt on its first attempt until the test releases it. */
    static class Stubborn {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        final AtomicInteger interrupts = new AtomicInteger();

        volatile @Nullable String thread;

        @DelayedHandler(type = "sync.partner", timeout = "200ms", backoff = "50ms")
        void sync(String partner, TaskContext context) {
            if (context.attempt() > 1) {
                return;
            }
            thread = Thread.currentThread().getName();
            started.countDown();
            while (true) {
                try {
                    if (release.await(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS)) {
                        return;
                    }
                }
                catch (InterruptedException ex) {
                    interrupts.incrementAndGet(); // and carries on
                }
            }
        }

        @DelayedHandler(type = "sync.other")
        void other(String what) {
        }
    }

    /** What the listeners hear, by task. */
    static final class Events implements TaskEvents {

        final Map<Long, List<Outcome>> outcomes = new ConcurrentHashMap<>();

        final Map<Long, List<Failure>> failures = new ConcurrentHashMap<>();

        final List<String> ignored = new CopyOnWriteArrayList<>();

        @Override
        public void finished(TaskContext task, Outcome outcome, long durationNanos) {
            outcomes.computeIfAbsent(task.id(), id -> new CopyOnWriteArrayList<>()).add(outcome);
        }

        @Override
        public void attemptFailed(TaskContext task, Failure failure, @Nullable Throwable error) {
            failures.computeIfAbsent(task.id(), id -> new CopyOnWriteArrayList<>()).add(failure);
        }

        @Override
        public void timeoutIgnored(TaskContext task, String thread) {
            ignored.add(task.id() + " on " + thread);
        }

        List<Outcome> outcomes(long id) {
            return outcomes.getOrDefault(id, List.of());
        }

        List<Failure> failures(long id) {
            return failures.getOrDefault(id, List.of());
        }
    }
}
