package io.github.delayqueue.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.store.TaskInspector;
import org.jspecify.annotations.Nullable;

/**
 * Tests delayed behaviour in milliseconds, without sleeping: the queue's clock is a {@link SettableClock} that only
 * the test moves, the engine runs nothing on its own, and {@link #advance(Duration)} moves the clock and runs every
 * task that falls due on the way, in due order, on the test's thread, as production would run it: claimed from the
 * store, run through the handler (its transaction included), completed, retried after its back-off or
 * dead-lettered. A retry 10 s later runs when the test advances 10 s; a task that a handler schedules runs within the
 * same advance when it falls due in it. Each call answers what ran and how it ended ({@link TaskRuns}), and
 * {@link #pending()} what waits, both for {@link DelayQueueAssertions}.
 * <p>
 * In a Spring Boot test, {@link AutoConfigureDelayQueueTester} (or {@code delay.test.enabled=true}) puts the
 * application's queue in this mode and makes the tester a bean, on the application's task table or on an in-memory
 * store. Without Spring, {@link #inMemory(Object...)} tests handlers on the in-memory store and
 * {@link #build(DelayQueueRuntimeBuilder)} on any store. docs/testing.md has the whole picture.
 * <p>
 * Calls are synchronized: one test thread drives the queue at a time. The clock moves only forward.
 */
public final class DelayQueueTester implements AutoCloseable {

    /** Most runs one call makes: a handler that schedules itself due at once again would otherwise never end. */
    static final int MAX_RUNS = 10_000;

    /** Pending tasks read per type for {@link #pending()}: a test's queue is far smaller. */
    private static final int PENDING_LIMIT = 10_000;

    private static final int PAGE = 1_000;

    private final SettableClock clock;

    private final Recorder recorder;

    private final Supplier<DelayQueueRuntime> runtime;

    /** The runtime the tester built itself, which {@link #close()} closes; {@code null} when the application's. */
    private final @Nullable DelayQueueRuntime owned;

    /** Most runs one call makes: {@link #MAX_RUNS}; the kit's own tests lower it. */
    private int maxRuns = MAX_RUNS;

    private DelayQueueTester(SettableClock clock, Recorder recorder, Supplier<DelayQueueRuntime> runtime,
            @Nullable DelayQueueRuntime owned) {
        this.clock = clock;
        this.recorder = recorder;
        this.runtime = runtime;
        this.owned = owned;
    }

    /** A tester of a runtime built elsewhere (the application context's), once {@link #configure} set it up. */
    DelayQueueTester(SettableClock clock, Supplier<DelayQueueRuntime> runtime) {
        this(clock, new Recorder(clock), runtime, null);
    }

    /**
     * A queue on the in-memory store, without a database or Redis, running the {@code @DelayedHandler} methods of
     * {@code handlers}; started, in jdbc mode. For tests of handlers that need no Spring context. Close it after the
     * test.
     *
     * @param handlers objects with {@code @DelayedHandler} methods
     * @return a started tester whose clock stands at the current time
     */
    public static DelayQueueTester inMemory(Object... handlers) {
        SettableClock clock = startClock();
        InMemoryTaskStore store = new InMemoryTaskStore(clock);
        return build(DelayQueueRuntime.builder(store, new InMemoryTaskInspector(store)).handlers(handlers), clock);
    }

    /**
     * Builds and starts the runtime of {@code builder} in test mode: on the tester's clock, driven by the tester
     * ({@link DelayQueueRuntimeBuilder#drivenByCaller(boolean)}), with the tester listening to its runs. For a queue
     * on the task table of a test database ({@code DelayQueueRuntime.builder(dataSource)}), or with settings of one's
     * own. Close it after the test: it closes the runtime.
     *
     * @param builder a builder with the store and handlers set; its clock and mode are the tester's
     * @return a started tester whose clock stands at the current time
     */
    public static DelayQueueTester build(DelayQueueRuntimeBuilder builder) {
        return build(builder, startClock());
    }

    private static DelayQueueTester build(DelayQueueRuntimeBuilder builder, SettableClock clock) {
        Recorder recorder = new Recorder(clock);
        configure(builder, clock, recorder);
        DelayQueueRuntime built = builder.build();
        built.start();
        return new DelayQueueTester(clock, recorder, () -> built, built);
    }

    /** A clock at the current time, in whole milliseconds: what due times are kept in, so they compare exactly. */
    static SettableClock startClock() {
        return SettableClock.atMillis(System.currentTimeMillis());
    }

    /** Test mode for {@code builder}: this tester's clock, driven by this tester, which hears its runs. */
    void configure(DelayQueueRuntimeBuilder builder) {
        configure(builder, clock, recorder);
    }

    private static void configure(DelayQueueRuntimeBuilder builder, SettableClock clock, Recorder recorder) {
        builder.clock(clock).drivenByCaller(true).listener(recorder);
    }

    /**
     * The test's clock, which the queue reads (and, in a Spring Boot test, the application's {@link Clock} bean):
     * it moves only when the tester moves it.
     *
     * @return the clock
     */
    public Clock clock() {
        return clock;
    }

    /**
     * The test's time.
     *
     * @return now, on the test's clock
     */
    public Instant now() {
        return clock.instant();
    }

    /**
     * The queue under test, to schedule with (in a Spring Boot test, the application's {@code DelayQueue} bean).
     *
     * @return the queue
     */
    public DelayQueue queue() {
        return runtime.get().queue();
    }

    /**
     * Moves the clock forward by {@code duration}, stopping at each due time on the way to run what falls due then,
     * in due order; see {@link #advanceTo(Instant)}.
     *
     * @param duration zero or more
     * @return the runs, in the order they ran
     */
    public TaskRuns advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("The test's clock only moves forward; was asked to move " + duration);
        }
        synchronized (this) {
            return advanceTo(now().plus(duration));
        }
    }

    /**
     * Moves the clock forward to {@code target}, running every task due by then in due order, each at its due time:
     * the clock stops at the earliest due time, runs what is due, and goes on to the next, so a retry after its
     * back-off, a follow-up of a keyed task, and a task a handler scheduled run within the same call when they fall
     * due before {@code target}. Everything runs on the calling thread; when it returns, every result is written.
     *
     * @param target a time at or after {@link #now()}
     * @return the runs, in the order they ran
     * @throws IllegalStateException when more than 10,000 runs would be made (a handler that schedules itself due at
     *     once), or when a due task cannot be claimed (a row locked by an open transaction)
     */
    public synchronized TaskRuns advanceTo(Instant target) {
        if (target.isBefore(now())) {
            throw new IllegalArgumentException("The test's clock only moves forward: it shows " + now()
                    + ", asked for " + target);
        }
        List<TaskRun> runs = new ArrayList<>(runDueNow(0));
        TaskInspector inspector = runtime.get().inspector();
        long dueBefore = Math.addExact(target.toEpochMilli(), 1);
        while (true) {
            Long next = inspector.overdue(dueBefore).oldestDueAt();
            if (next == null) {
                break;
            }
            if (next > clock.millis()) {
                clock.setMillis(next);
            }
            List<TaskRun> ran = runDueNow(runs.size());
            if (ran.isEmpty()) {
                throw new IllegalStateException("A task due at " + Instant.ofEpochMilli(next) + " could not be "
                        + "claimed: is its row locked by a transaction that is still open (a @Transactional test)?");
            }
            runs.addAll(ran);
        }
        if (target.isAfter(now())) {
            clock.set(target);
        }
        return new TaskRuns(runs);
    }

    /**
     * Runs what is due now, without moving the clock: tasks scheduled with no delay, or due in the past, and those
     * that their runs schedule due now.
     *
     * @return the runs, in the order they ran
     */
    public synchronized TaskRuns runDue() {
        return new TaskRuns(runDueNow(0));
    }

    /** One round of the runtime on this thread; {@code before}: runs this call made already, for the limit. */
    private List<TaskRun> runDueNow(int before) {
        List<TaskRun> runs = recorder.capture(() -> runtime.get().runDueTasks(maxRuns + 1 - before));
        if (before + runs.size() > maxRuns) {
            throw new IllegalStateException("More than " + maxRuns + " runs without the clock moving past them; "
                    + "does a handler schedule itself due at once? The last: " + runs.get(runs.size() - 1));
        }
        return runs;
    }

    /** Lowers the most runs one call makes, so a test of the guard need not make 10,000 runs on a real database. */
    synchronized void limitRuns(int runs) {
        this.maxRuns = runs;
    }

    /**
     * Every run the tester made since it started, in order: for assertions over several calls.
     *
     * @return the runs
     */
    public TaskRuns history() {
        return new TaskRuns(recorder.history());
    }

    /**
     * The tasks that have not started, of every type (pending, or follow-ups waiting for their key's running task),
     * earliest due first, with their key, status and due time.
     *
     * @return the tasks, read now
     */
    public synchronized PendingTasks pending() {
        Set<String> types = new LinkedHashSet<>();
        runtime.get().inspector()
            .countByTypeAndStatus(EnumSet.of(TaskStatus.SCHEDULED, TaskStatus.QUEUED, TaskStatus.WAITING),
                    PENDING_LIMIT)
            .forEach(count -> types.add(count.type()));
        List<TaskView> tasks = new ArrayList<>();
        types.forEach(type -> tasks.addAll(unstarted(type)));
        tasks.sort(Comparator.comparing(TaskView::dueAt).thenComparingLong(TaskView::id));
        return new PendingTasks(tasks, now());
    }

    /**
     * The tasks of one type that have not started, earliest due first.
     *
     * @param type the task type
     * @return the tasks, read now
     */
    public synchronized PendingTasks pending(String type) {
        List<TaskView> tasks = new ArrayList<>(unstarted(type));
        tasks.sort(Comparator.comparing(TaskView::dueAt).thenComparingLong(TaskView::id));
        return new PendingTasks(tasks, now());
    }

    private List<TaskView> unstarted(String type) {
        DelayQueue queue = queue();
        List<TaskView> all = new ArrayList<>();
        TaskView after = null;
        List<TaskView> page;
        do {
            page = queue.findUnstarted(type, null, after, PAGE);
            all.addAll(page);
            after = page.isEmpty() ? null : page.get(page.size() - 1);
        }
        while (page.size() == PAGE);
        return all;
    }

    /** Closes the runtime the tester built itself ({@link #inMemory}, {@link #build}); an application's stays. */
    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }

    /**
     * Hears the runs, which all happen on the thread that drives the runtime, and keeps them as {@link TaskRun}s.
     * The attempt's failure comes right after its end ({@link TaskEvents#attemptFailed}) and is added to it.
     */
    static final class Recorder implements TaskEvents {

        private final Clock clock;

        private final List<TaskRun> history = new ArrayList<>();

        private @Nullable List<TaskRun> captured;

        Recorder(Clock clock) {
            this.clock = clock;
        }

        synchronized List<TaskRun> capture(Runnable work) {
            List<TaskRun> runs = new ArrayList<>();
            captured = runs;
            try {
                work.run();
            }
            finally {
                captured = null;
            }
            return runs;
        }

        synchronized List<TaskRun> history() {
            return List.copyOf(history);
        }

        @Override
        public synchronized void finished(TaskContext task, Outcome outcome, long durationNanos) {
            add(new TaskRun(task.id(), task.type(), task.key(), task.attempt(), task.dueAt(), clock.instant(),
                    outcome, null, null));
        }

        @Override
        public synchronized void attemptFailed(TaskContext task, Failure failure, @Nullable Throwable error) {
            List<TaskRun> runs = captured;
            TaskRun last = runs == null || runs.isEmpty() ? null : runs.get(runs.size() - 1);
            if (last != null && last.id() == task.id() && last.attempt() == task.attempt()) {
                TaskRun failed = last.failedWith(failure, error);
                runs.set(runs.size() - 1, failed);
                history.set(history.size() - 1, failed);
            }
            else { // a failure around the handler comes without an end of its own: it is retried like one
                add(new TaskRun(task.id(), task.type(), task.key(), task.attempt(), task.dueAt(), clock.instant(),
                        Outcome.RETRY, failure, error));
            }
        }

        private void add(TaskRun run) {
            history.add(run);
            List<TaskRun> runs = captured;
            if (runs != null) {
                runs.add(run);
            }
        }

        @Override
        public String toString() {
            return "DelayQueueTester";
        }
    }

    @Override
    public String toString() {
        return "DelayQueueTester at " + now();
    }
}
