package io.github.delayqueue.test;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.PayloadBindingException;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.store.TaskTable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link TaskEvents} listener must do: take every event the engine sends, with the arguments it sends, from
 * any of its threads at once, without throwing, without waiting, and without touching the calling thread's interrupt
 * status. The engine calls listeners in the middle of its work: {@code started}, {@code finished} and
 * {@code attemptFailed} on the worker thread that runs the task, around its handler (an interrupt that the lease guard
 * sends while {@code started} runs is meant for the handler that follows); {@code claimConflicts}, {@code migrated},
 * {@code recovered}, {@code indexRebuilt}, {@code workFailed}, and {@code finished}, {@code attemptFailed} and
 * {@code timeoutIgnored} of a handler that ran over its timeout and ignored its interrupt, on the engine's scheduler
 * threads, inside the
 * dispatcher's and the jobs' rounds; {@code scheduled} and {@code cancelled} on the application's thread, after the
 * commit of its {@code schedule} or {@code cancel} call; {@code indexAvailability} on whichever of these used the index
 * when it was found unreachable or reachable again. Extend this class to hold a listener of your own to these rules and
 * give it in {@link #createEvents()}; {@code CompositeTaskEventsTest} in delay-core runs them on the composite the
 * engine calls, and delay-autoconfigure on {@code TaskMeters} and its other listeners.
 * <p>
 * What these cannot check, and a listener must still do: record what it is told correctly under concurrent calls (check
 * that in your own tests: these only see that no call fails or hangs), and return quickly: events come in the engine's
 * hot paths, as often as tasks run, so a call may cost a map look-up and an increment, never a wait for I/O or a lock
 * that something slow may hold (speed is the benchmark's to measure, not a test's). The engine puts every listener
 * behind {@link TaskEvents#composite}, which logs a {@link RuntimeException} a listener throws (a warning with its
 * stack trace, on every call) and goes on; an {@link Error} it passes on to whatever sent the event.
 */
public abstract class TaskEventsContract {

    private TaskEvents events;

    /** The listener under test; called once before each test. */
    protected abstract TaskEvents createEvents();

    @BeforeEach
    void createTheListener() {
        events = createEvents();
    }

    @AfterEach
    void leaveTheThreadClean() {
        Thread.interrupted();
    }

    /** A task's events as the engine sends them: types up to the longest allowed, due times far back and ahead. */
    @Test
    void everyTaskEventIsTakenWithTheArgumentsTheEngineSends() {
        assertEveryCallReturns(taskEvents());
    }

    /** Every reason with what the engine passes for it: {@code null} when no handler serves the type. */
    @Test
    void everyFailedAttemptIsTakenWithWhatTheEngineSaysWasThrown() {
        assertEveryCallReturns(failures());
    }

    @Test
    void everyEventOfTheEnginesLoopsAndJobsIsTaken() {
        assertEveryCallReturns(engineEvents());
    }

    /**
     * The lease guard interrupts a worker thread while it may be in {@code started}, right before the handler: a
     * listener that cleared the interrupt would let the handler run on after the lease is lost, beside another
     * instance's run of the task. And a listener that interrupted a thread would cut off the next handler on it.
     */
    @Test
    void noEventChangesTheCallersInterruptStatus() {
        List<String> wrong = new ArrayList<>();
        for (Event event : all()) {
            Thread.currentThread().interrupt();
            call(event);
            if (!Thread.interrupted()) {
                wrong.add(event.name + " cleared the interrupt status");
            }
            call(event);
            if (Thread.interrupted()) {
                wrong.add(event.name + " interrupted the thread");
            }
        }
        assertThat(wrong).isEmpty();
    }

    /** The engine sends events from its workers, its scheduler threads and the application's threads at once. */
    @Test
    void eventsFromManyThreadsAtOnceAreTaken() throws Exception {
        int threads = 8;
        int rounds = 200;
        List<Event> all = all();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<String>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Callable<List<String>> sender = () -> {
                    go.await();
                    List<String> failed = new ArrayList<>();
                    for (int round = 0; round < rounds; round++) {
                        String type = "concurrent." + (round * threads + thread) % 16; // types new to the listener
                        for (Event event : concurrentEvents(type, round)) {
                            failed.addAll(failure(event));
                        }
                        failed.addAll(failure(all.get((round + thread) % all.size())));
                    }
                    return failed;
                };
                results.add(pool.submit(sender));
            }
            go.countDown();
            List<String> failed = new ArrayList<>();
            for (Future<List<String>> result : results) {
                failed.addAll(result.get(60, TimeUnit.SECONDS));
            }
            assertThat(failed).isEmpty();
        }
        finally {
            pool.shutdownNow();
        }
    }

    private void assertEveryCallReturns(List<Event> sent) {
        List<String> failed = new ArrayList<>();
        for (Event event : sent) {
            failed.addAll(failure(event));
        }
        assertThat(failed).isEmpty();
    }

    private List<String> failure(Event event) {
        try {
            call(event);
            return List.of();
        }
        catch (Throwable ex) { // a listener must not throw anything, Errors included
            return List.of(event.name + " threw " + ex);
        }
    }

    private void call(Event event) {
        event.call.accept(events);
    }

    private static List<Event> all() {
        List<Event> all = new ArrayList<>(taskEvents());
        all.addAll(failures());
        all.addAll(engineEvents());
        return all;
    }

    private static List<Event> taskEvents() {
        List<Event> sent = new ArrayList<>();
        List<String> types = List.of("order.cancel", "a", "bestellung.stornieren-\u00fc",
                "x".repeat(TaskTable.MAX_TYPE_LENGTH));
        for (String type : types) {
            TaskContext first = task(1, type, null, 1);
            TaskContext last = task(2, type, "key-" + type, 25);
            sent.add(new Event("scheduled(" + type + ")", e -> e.scheduled(type)));
            sent.add(new Event("cancelled(" + type + ")", e -> e.cancelled(type)));
            // the pool starts a task claimed ahead on a timer at its due time: the queue clock may read it early
            for (long lateness : new long[] {-3, 0, 25, TimeUnit.DAYS.toMillis(3)}) {
                sent.add(new Event("started(" + type + ", " + lateness + ")", e -> e.started(first, lateness)));
            }
            sent.add(new Event("started(" + type + " with a key)", e -> e.started(last, 1)));
            sent.add(new Event("finished(" + type + ", SUCCESS)",
                    e -> e.finished(first, TaskEvents.Outcome.SUCCESS, 3_000_000)));
            sent.add(new Event("finished(" + type + ", RETRY)",
                    e -> e.finished(first, TaskEvents.Outcome.RETRY, TimeUnit.MINUTES.toNanos(30))));
            sent.add(new Event("finished(" + type + ", FAILED)",
                    e -> e.finished(last, TaskEvents.Outcome.FAILED, 1)));
            // no handler ran: the type has none, or the payload did not bind
            sent.add(new Event("finished(" + type + ", FAILED, 0)", e -> e.finished(last, TaskEvents.Outcome.FAILED,
                    0)));
            // the payload did not bind: parked, no handler ran
            sent.add(new Event("finished(" + type + ", PARKED, 0)", e -> e.finished(last, TaskEvents.Outcome.PARKED,
                    0)));
        }
        return sent;
    }

    private static List<Event> failures() {
        TaskContext task = task(3, "order.cancel", "o-3", 2);
        List<Event> sent = new ArrayList<>();
        sent.add(new Event("attemptFailed(NO_HANDLER, null)",
                e -> e.attemptFailed(task, TaskEvents.Failure.NO_HANDLER, null)));
        List<Throwable> handlerFailures = List.of(new IllegalStateException("order 3 is locked"),
                new IOException((String) null), new InterruptedException("stopped"), new AssertionError("1 row"),
                new OutOfMemoryError("Java heap space"), new StackOverflowError(),
                new RuntimeException("an anonymous class, which has no simple name") {
                });
        for (Throwable thrown : handlerFailures) {
            sent.add(new Event("attemptFailed(HANDLER, " + thrown.getClass().getName() + ")",
                    e -> e.attemptFailed(task, TaskEvents.Failure.HANDLER, thrown)));
        }
        for (RuntimeException thrown : List.of(new PayloadBindingException("cannot bind payload to Order",
                new IllegalArgumentException("missing 'id'")), new IllegalArgumentException("a codec's own"))) {
            sent.add(new Event("attemptFailed(BINDING, " + thrown.getClass().getName() + ")",
                    e -> e.attemptFailed(task, TaskEvents.Failure.BINDING, thrown)));
        }
        for (Throwable thrown : List.of(new InterruptedException("sleep interrupted"), new IOException("closed"))) {
            sent.add(new Event("attemptFailed(LEASE_LOST, " + thrown.getClass().getName() + ")",
                    e -> e.attemptFailed(task, TaskEvents.Failure.LEASE_LOST, thrown)));
        }
        TimeoutException overran = new TimeoutException(
                "Handler of type 'order.cancel' ran over its timeout of PT5S; interrupted");
        overran.initCause(new InterruptedException("sleep interrupted"));
        for (Throwable thrown : List.of(overran, new TimeoutException("ignored its interrupt"))) {
            sent.add(new Event("attemptFailed(TIMEOUT, " + thrown.getMessage() + ")",
                    e -> e.attemptFailed(task, TaskEvents.Failure.TIMEOUT, thrown)));
        }
        // the timeout check, on a scheduler thread, of a handler that ran over its timeout and ignored the interrupt
        sent.add(new Event("timeoutIgnored", e -> e.timeoutIgnored(task, "delay-worker-3")));
        for (Throwable thrown : List.of(new NoClassDefFoundError("com/example/Codec"), new NullPointerException())) {
            sent.add(new Event("attemptFailed(INTERNAL, " + thrown.getClass().getName() + ")",
                    e -> e.attemptFailed(task, TaskEvents.Failure.INTERNAL, thrown)));
        }
        return sent;
    }

    private static List<Event> engineEvents() {
        List<Event> sent = new ArrayList<>();
        for (int count : new int[] {1, 5_000}) {
            sent.add(new Event("claimConflicts(" + count + ")", e -> e.claimConflicts(count)));
            sent.add(new Event("migrated(" + count + ")", e -> e.migrated(count)));
            for (TaskEvents.RecoveryReason reason : TaskEvents.RecoveryReason.values()) {
                sent.add(new Event("recovered(" + reason + ", " + count + ")", e -> e.recovered(reason, count)));
            }
        }
        sent.add(new Event("indexAvailability(false)", e -> e.indexAvailability(false)));
        sent.add(new Event("indexAvailability(true)", e -> e.indexAvailability(true)));
        sent.add(new Event("indexRebuilt(0)", e -> e.indexRebuilt(0)));
        sent.add(new Event("indexRebuilt(120000)", e -> e.indexRebuilt(120_000)));
        for (String work : List.of("dispatcher", "result writer", "lease renewal", "lease recovery", "migration",
                "index repair", "index writes", "retention purge")) {
            sent.add(new Event("workFailed(" + work + ")", e -> e.workFailed(work)));
        }
        return sent;
    }

    /** A task's life on one type: scheduled, run, failed, retried, succeeded, and another cancelled. */
    private static List<Event> concurrentEvents(String type, int round) {
        TaskContext task = task(round, type, round % 2 == 0 ? null : "k-" + round, 1 + round % 3);
        IllegalStateException thrown = new IllegalStateException("round " + round);
        return List.of(new Event("scheduled(" + type + ")", e -> e.scheduled(type)),
                new Event("started(" + type + ")", e -> e.started(task, round % 50)),
                new Event("finished(" + type + ", RETRY)", e -> e.finished(task, TaskEvents.Outcome.RETRY, 1_000)),
                new Event("attemptFailed(" + type + ", HANDLER)",
                        e -> e.attemptFailed(task, TaskEvents.Failure.HANDLER, thrown)),
                new Event("finished(" + type + ", SUCCESS)", e -> e.finished(task, TaskEvents.Outcome.SUCCESS, 900)),
                new Event("cancelled(" + type + ")", e -> e.cancelled(type)),
                new Event("workFailed(lease renewal)", e -> e.workFailed("lease renewal")));
    }

    private static TaskContext task(long id, String type, @Nullable String key, int attempt) {
        return new TaskContext(id, type, key, attempt, Instant.ofEpochMilli(1_750_000_000_000L + id),
                Instant.ofEpochMilli(1_749_000_000_000L), attempt + 1);
    }

    /** One call the engine makes, named for the failure message. */
    private record Event(String name, Consumer<TaskEvents> call) {
    }
}
