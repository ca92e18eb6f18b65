package io.github.delayqueue.test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.runtime.TaskEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.github.delayqueue.test.DelayQueueAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the test kit promises, on every store it runs on: tasks run when the test moves the clock to their due time
 * and not before, in due order, retries after their back-off, keyed modes, cancellation and bulk operations as in
 * production, handler exceptions in the test's hands, and chains within one advance. Subclasses give the store.
 */
abstract class DelayQueueTesterScenarios {

    static final String CANCEL = "order.cancel";

    static final String FLAKY = "flaky";

    static final String BROKEN = "broken";

    static final String FIRST = "chain.first";

    static final String SECOND = "chain.second";

    static final String REPORT = "report.recompute";

    final Handlers handlers = new Handlers();

    DelayQueueTester tester;

    DelayQueue queue;

    /** A started tester in test mode on the subclass's store, running {@code handlers}. */
    abstract DelayQueueTester create(Object handlers);

    /** The status of a task due within the hybrid threshold: {@code QUEUED} in hybrid mode, else {@code SCHEDULED}. */
    abstract TaskStatus nearStatus();

    @BeforeEach
    void startTester() {
        tester = create(handlers);
        queue = tester.queue();
        handlers.queue = queue;
    }

    @AfterEach
    void closeTester() {
        if (tester != null) {
            tester.close();
        }
    }

    @Test
    void aTaskRunsWhenTheClockReachesItsDueTimeAndNotBefore() {
        queue.schedule(TaskRequest.of(CANCEL, "42").key("42").delay(Duration.ofMinutes(30)).build());

        assertThat(tester.pending()).hasSize(1).hasTask(CANCEL, "42").dueIn(Duration.ofMinutes(30))
            .hasStatus(nearStatus());
        assertThat(tester.advance(Duration.ofMinutes(30).minusMillis(1))).isEmpty();
        assertThat(handlers.cancelled).isEmpty();

        Instant dueAt = tester.now().plusMillis(1);
        TaskRuns runs = tester.advance(Duration.ofMillis(1));

        assertThat(runs).ranOnce(CANCEL, "42").succeeded().hasAttempt(1);
        assertThat(runs.list().get(0).ranAt()).isEqualTo(dueAt);
        assertThat(handlers.cancelled).containsExactly("42");
        assertThat(tester.pending()).isEmpty();
        assertThat(queue.find(CANCEL, "42")).map(TaskView::status).hasValue(TaskStatus.SUCCEEDED);
    }

    @Test
    void tasksRunInDueOrderEachAtItsDueTime() {
        Instant start = tester.now();
        queue.schedule(CANCEL, "third", Duration.ofHours(3));
        queue.schedule(CANCEL, "first", Duration.ofMinutes(1));
        queue.schedule(CANCEL, "second", Duration.ofHours(2));

        TaskRuns runs = tester.advance(Duration.ofDays(1));

        assertThat(runs).hasSize(3).allSucceeded();
        assertThat(handlers.cancelled).containsExactly("first", "second", "third");
        assertThat(runs.list()).extracting(TaskRun::ranAt).containsExactly(start.plus(Duration.ofMinutes(1)),
                start.plus(Duration.ofHours(2)), start.plus(Duration.ofHours(3)));
        assertThat(tester.now()).isEqualTo(start.plus(Duration.ofDays(1)));
    }

    @Test
    void runDueRunsWhatIsDueNowWithoutMovingTheClock() {
        Instant start = tester.now();
        queue.schedule(CANCEL, "now", Duration.ZERO);
        queue.schedule(CANCEL, "later", Duration.ofSeconds(1));

        assertThat(tester.runDue()).ranOnce(CANCEL, null).succeeded();

        assertThat(handlers.cancelled).containsExactly("now");
        assertThat(tester.now()).isEqualTo(start);
        assertThat(tester.pending()).hasSize(1);
    }

    @Test
    void aRetryRunsWhenTheClockReachesItsBackoff() {
        handlers.flakyFailures = 2; // backoff 10s, multiplier 2: attempt 2 after 10 s, attempt 3 20 s later
        queue.schedule(TaskRequest.of(FLAKY, "x").key("x").delay(Duration.ZERO).build());

        assertThat(tester.runDue()).ranOnce(FLAKY, "x").isRetried().failedWith(IllegalStateException.class)
            .hasAttempt(1);
        assertThat(tester.pending()).hasTask(FLAKY, "x").dueIn(Duration.ofSeconds(10)).hasAttempts(1);
        assertThat(tester.advance(Duration.ofSeconds(10).minusMillis(1))).isEmpty();
        assertThat(tester.advance(Duration.ofMillis(1))).ranOnce(FLAKY, "x").isRetried().hasAttempt(2);
        assertThat(tester.pending()).hasTask(FLAKY, "x").dueIn(Duration.ofSeconds(20)).hasAttempts(2);
        assertThat(tester.advance(Duration.ofSeconds(20))).ranOnce(FLAKY, "x").succeeded().hasAttempt(3);

        assertThat(queue.find(FLAKY, "x")).map(TaskView::status).hasValue(TaskStatus.SUCCEEDED);
        assertThat(tester.history().of(FLAKY, "x")).hasSize(3);
    }

    @Test
    void everyRetryRunsWithinOneAdvanceAtItsBackoff() {
        handlers.flakyFailures = 2;
        Instant start = tester.now();
        queue.schedule(FLAKY, "y", Duration.ofMinutes(1));

        TaskRuns runs = tester.advance(Duration.ofHours(1));

        assertThat(runs.list()).extracting(TaskRun::attempt, TaskRun::outcome, TaskRun::ranAt).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, TaskEvents.Outcome.RETRY, start.plus(Duration.ofMinutes(1))),
                org.assertj.core.groups.Tuple.tuple(2, TaskEvents.Outcome.RETRY,
                        start.plus(Duration.ofMinutes(1)).plusSeconds(10)),
                org.assertj.core.groups.Tuple.tuple(3, TaskEvents.Outcome.SUCCESS,
                        start.plus(Duration.ofMinutes(1)).plusSeconds(30)));
    }

    @Test
    void aPayloadThatDoesNotBindToItsHandlerIsParked() {
        long id = queue.schedule(TaskRequest.of(CANCEL, java.util.Map.of("order", 7)).key("p").build());

        TaskRuns runs = tester.advance(Duration.ofMinutes(1));

        assertThat(runs).hasSize(1).hasRun(CANCEL, "p").isParked();
        assertThat(runs.list().get(0).failure()).isEqualTo(TaskEvents.Failure.BINDING);
        assertThat(queue.find(id).orElseThrow().status()).isEqualTo(TaskStatus.PARKED);
        assertThat(tester.advance(Duration.ofHours(1))).hasSize(0); // a parked task waits for a re-run
    }

    @Test
    void aHandlersExceptionReachesTheTestWithItsTask() {
        long id = queue.schedule(TaskRequest.of(BROKEN, "b").key("b").delay(Duration.ofMinutes(5)).build());

        TaskRuns runs = tester.advance(Duration.ofHours(1));

        // maxAttempts 2, backoff 1s: the second attempt dead-letters it, in the same advance
        assertThat(runs).hasSize(2).hasRun(BROKEN, "b").isDeadLettered().failedWith(IOException.class)
            .hasAttempt(2);
        TaskRun last = runs.list().get(1);
        assertThat(last.id()).isEqualTo(id);
        assertThat(last.error()).isSameAs(handlers.thrown.get(1));
        assertThat(last.failure()).isEqualTo(TaskEvents.Failure.HANDLER);
        assertThatThrownBy(() -> assertThat(runs).allSucceeded())
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining(BROKEN + "[b] #" + id)
            .cause().isSameAs(handlers.thrown.get(0));
        assertThatThrownBy(() -> assertThat(runs).hasRun(BROKEN, "b").succeeded())
            .cause().isSameAs(handlers.thrown.get(1));
        TaskView failed = queue.find(id).orElseThrow();
        assertThat(failed.status()).isEqualTo(TaskStatus.FAILED);
        assertThat(failed.lastError()).contains("disk full 2");
    }

    @Test
    void aTaskNoHandlerServesWaitsPendingForOneThatDoes() {
        long id = queue.schedule("nobody.serves", "payload", Duration.ZERO);

        assertThat(tester.runDue().list()).as("not claimed: no handler here").isEmpty();
        assertThat(queue.find(id)).map(TaskView::status).get().matches(TaskStatus::isPending, "pending");
    }

    @Test
    void aCancelledTaskNeverRuns() {
        queue.schedule(TaskRequest.of(CANCEL, "7").key("7").delay(Duration.ofMinutes(30)).build());

        assertThat(queue.cancel(CANCEL, "7")).isTrue();

        assertThat(tester.pending()).hasNoTask(CANCEL, "7").isEmpty();
        assertThat(tester.advance(Duration.ofDays(1))).isEmpty();
        assertThat(handlers.cancelled).isEmpty();
    }

    @Test
    void bulkOperationsChangeWhatRuns() {
        for (String key : List.of("a-1", "a-2", "b-1", "c-1")) {
            queue.schedule(TaskRequest.of(CANCEL, key).key(key).delay(Duration.ofMinutes(30)).build());
        }

        assertThat(queue.cancelAll(CANCEL, "a-")).isEqualTo(2);
        assertThat(queue.shiftAll(CANCEL, "b-", Duration.ofMinutes(10))).isEqualTo(1);
        assertThat(queue.rescheduleAll(CANCEL, "c-", tester.now().plus(Duration.ofHours(2)))).isEqualTo(1);

        assertThat(tester.pending()).hasSize(2).hasNoTask(CANCEL, "a-1").hasNoTask(CANCEL, "a-2");
        assertThat(tester.pending()).hasTask(CANCEL, "b-1").dueIn(Duration.ofMinutes(40));
        assertThat(tester.pending()).hasTask(CANCEL, "c-1").dueIn(Duration.ofHours(2)).hasStatus(TaskStatus.SCHEDULED);
        assertThat(tester.advance(Duration.ofMinutes(40))).ranOnce(CANCEL, "b-1").succeeded();
        assertThat(tester.advance(Duration.ofHours(2))).ranOnce(CANCEL, "c-1").succeeded();
        assertThat(handlers.cancelled).containsExactly("b-1", "c-1");
    }

    @Test
    void keyedModesKeepReplaceAndDebounceThePendingTask() {
        Scheduled first = queue.submit(TaskRequest.of(CANCEL, "v1").key("k").delay(Duration.ofMinutes(30)).build());
        Scheduled kept = queue.submit(TaskRequest.of(CANCEL, "v2").key("k").delay(Duration.ofMinutes(5)).build());
        assertThat(kept).isEqualTo(new Scheduled(first.id(), Scheduled.Outcome.KEPT));
        assertThat(tester.pending()).hasTask(CANCEL, "k").dueIn(Duration.ofMinutes(30));

        Scheduled replaced = queue.submit(TaskRequest.of(CANCEL, "v3").key("k").delay(Duration.ofMinutes(10))
            .replace().build());
        assertThat(replaced.outcome()).isEqualTo(Scheduled.Outcome.REPLACED);
        assertThat(tester.pending()).hasSize(1).hasTask(CANCEL, "k").dueIn(Duration.ofMinutes(10));

        tester.advance(Duration.ofMinutes(5));
        Scheduled extended = queue.submit(TaskRequest.of(CANCEL, "v4").key("k").delay(Duration.ofMinutes(20))
            .debounce().build());
        assertThat(extended.outcome()).isEqualTo(Scheduled.Outcome.EXTENDED);
        assertThat(tester.pending()).hasSize(1).hasTask(CANCEL, "k").dueIn(Duration.ofMinutes(20));

        assertThat(tester.advance(Duration.ofMinutes(20).minusMillis(1))).isEmpty();
        assertThat(tester.advance(Duration.ofMillis(1))).ranOnce(CANCEL, "k").succeeded();
        assertThat(handlers.cancelled).containsExactly("v4");
    }

    @Test
    void aFollowUpRequestedWhileItsTaskRunsRunsAfterItInTheSameAdvance() {
        queue.schedule(TaskRequest.of(REPORT, "r1").key("r").delay(Duration.ofMinutes(1)).build());

        TaskRuns runs = tester.advance(Duration.ofMinutes(2));

        assertThat(handlers.followUpOutcome).isEqualTo(Scheduled.Outcome.QUEUED_AFTER_RUNNING);
        assertThat(runs).hasSize(2).allSucceeded();
        assertThat(handlers.reports).containsExactly("r1", "again");
        assertThat(runs.list().get(0).id()).isNotEqualTo(runs.list().get(1).id());
        assertThat(tester.pending()).isEmpty();
    }

    @Test
    void aTaskAHandlerSchedulesRunsWithinTheSameAdvance() {
        Instant start = tester.now();
        queue.schedule(FIRST, "c", Duration.ofMinutes(1));

        TaskRuns runs = tester.advance(Duration.ofHours(1));

        assertThat(runs).hasSize(2).allSucceeded();
        assertThat(runs.list()).extracting(TaskRun::type, TaskRun::ranAt).containsExactly(
                org.assertj.core.groups.Tuple.tuple(FIRST, start.plus(Duration.ofMinutes(1))),
                org.assertj.core.groups.Tuple.tuple(SECOND, start.plus(Duration.ofMinutes(6))));
        assertThat(handlers.chained).containsExactly("c");
    }

    @Test
    void theClockOnlyMovesForward() {
        Instant now = tester.now();
        assertThatThrownBy(() -> tester.advanceTo(now.minusMillis(1))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("only moves forward");
        assertThatThrownBy(() -> tester.advance(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(tester.now()).isEqualTo(now);
        assertThat(tester.clock().instant()).isEqualTo(now);
    }

    @Test
    void aHandlerThatKeepsSchedulingItselfNowIsStopped() {
        queue.schedule("forever", "x", Duration.ZERO);
        tester.limitRuns(50); // the guard is the same at any limit; 10,000 runs take minutes on a real database

        assertThatThrownBy(() -> tester.runDue()).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("schedule itself due at once");
    }

    /** The handlers every scenario uses; their state is the test's to read. */
    static final class Handlers {

        final List<String> cancelled = new CopyOnWriteArrayList<>();

        final List<String> reports = new CopyOnWriteArrayList<>();

        final List<String> chained = new CopyOnWriteArrayList<>();

        final List<Throwable> thrown = new CopyOnWriteArrayList<>();

        volatile int flakyFailures;

        volatile Scheduled.@Nullable Outcome followUpOutcome;

        volatile DelayQueue queue;

        @DelayedHandler(type = CANCEL)
        void cancel(String order) {
            cancelled.add(order);
        }

        @DelayedHandler(type = FLAKY, maxAttempts = 5, backoff = "10s", multiplier = "2")
        void flaky(String payload, TaskContext task) {
            if (task.attempt() <= flakyFailures) {
                throw new IllegalStateException("attempt " + task.attempt() + " fails");
            }
        }

        @DelayedHandler(type = BROKEN, maxAttempts = 2, backoff = "1s")
        void broken(String payload, TaskContext task) throws IOException {
            IOException failure = new IOException("disk full " + task.attempt());
            thrown.add(failure);
            throw failure;
        }

        @DelayedHandler(type = FIRST)
        void first(String payload) {
            queue.schedule(SECOND, payload, Duration.ofMinutes(5));
        }

        @DelayedHandler(type = SECOND)
        void second(String payload) {
            chained.add(payload);
        }

        @DelayedHandler(type = REPORT)
        void report(String payload, TaskContext task) {
            reports.add(payload);
            if (reports.size() == 1) { // an edit while the report is computed: once more after this run
                followUpOutcome = queue.submit(TaskRequest.of(REPORT, "again").key(task.key()).runOnceMore()
                    .build()).outcome();
            }
        }

        @DelayedHandler(type = "forever")
        void forever(String payload) {
            queue.schedule("forever", payload, Duration.ZERO);
        }
    }
}
