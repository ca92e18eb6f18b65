package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.runtime.TaskEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Turns the engine's events into Micrometer meters. Tags stay low-cardinality: the task type (bounded by the
 * application's handlers), an outcome or a reason, never an id or a key. Meters of a type are built on its first
 * event and then reused, so an event costs a map look-up and an increment.
 *
 * <ul>
 * <li>{@code delay.tasks.scheduled} {type}: tasks created (a duplicate key creates none)</li>
 * <li>{@code delay.tasks.completed} {type, outcome = success | retry | failed | cancelled | parked}</li>
 * <li>{@code delay.task.failures} {type, reason = handler | binding | no-handler | lease-lost | timeout | internal,
 * exception}:
 * failed attempts, by the simple name of the exception's class ({@code none} when no handler serves the type); at
 * most {@value #MAX_EXCEPTIONS_PER_TYPE} names per type, further ones count as {@code other}</li>
 * <li>{@code delay.task.duration} {type}: handler run time, unless an observation around each run times it
 * ({@link #TaskMeters(MeterRegistry, boolean)})</li>
 * <li>{@code delay.task.lateness} {type}: start minus due time, with a percentile histogram</li>
 * <li>{@code delay.task.timeouts.ignored} {type}: handlers that ran over their timeout and had not returned a second
 * after their interrupt; each holds a worker thread until it returns</li>
 * <li>{@code delay.claim.conflicts}, {@code delay.migration.tasks}, {@code delay.recovery.tasks} {reason}</li>
 * <li>{@code delay.index.rebuilds}: full rebuilds of the time index this instance did for all</li>
 * <li>{@code delay.engine.failures} {work}: failed runs of the engine's loops and jobs (lease renewal, the result
 * writer, ...), each tried again within half a second</li>
 * </ul>
 */
public final class TaskMeters implements TaskEvents {

    /** The tag of the task type, on every meter of a type and on the observation of a run. */
    static final String TYPE_TAG = "type";

    /** Lateness is published as a histogram from here to {@link #LATENESS_MAX}; later starts land in +Inf. */
    static final Duration LATENESS_MIN = Duration.ofMillis(1);

    static final Duration LATENESS_MAX = Duration.ofHours(1);

    /**
     * Exception names a type's failure counters take before further ones count as {@code other}: handlers throw a
     * handful of kinds, but one that builds exception classes at run time (proxies, lambdas) must not grow the
     * registry without end.
     */
    static final int MAX_EXCEPTIONS_PER_TYPE = 20;

    private final MeterRegistry registry;

    private final Map<String, TypeMeters> byType = new ConcurrentHashMap<>();

    private final Counter claimConflicts;

    private final Counter migrated;

    private final Map<RecoveryReason, Counter> recovered = new EnumMap<>(RecoveryReason.class);

    private final Counter indexRebuilds;

    private final Map<String, Counter> workFailures = new ConcurrentHashMap<>();

    /** Whether this records {@code delay.task.duration}: false when the run's observation has a timer of its own. */
    private final boolean timesRuns;

    /** Meters that time each handler run themselves ({@code delay.task.duration}). */
    public TaskMeters(MeterRegistry registry) {
        this(registry, true);
    }

    /**
     * Meters that time each handler run, or leave that to the run's observation.
     *
     * @param timesRuns whether to time each handler run ({@code delay.task.duration}); {@code false} where every run
     *     is observed ({@link ObservedHandlerInvoker}), so that the observation's timer ({@code delay.task.execution})
     *     is the one timer of a run
     */
    public TaskMeters(MeterRegistry registry, boolean timesRuns) {
        this.registry = registry;
        this.timesRuns = timesRuns;
        this.claimConflicts = Counter.builder("delay.claim.conflicts")
            .description("Task ids taken from the index whose rows another instance or a cancel had already changed")
            .register(registry);
        this.migrated = Counter.builder("delay.migration.tasks")
            .description("Tasks moved from the database tier into the Redis time index")
            .register(registry);
        this.indexRebuilds = Counter.builder("delay.index.rebuilds")
            .description("Full rebuilds of the Redis time index from the database that this instance did, after "
                    + "Redis came back, for every instance that saw it back")
            .register(registry);
        for (RecoveryReason reason : RecoveryReason.values()) {
            recovered.put(reason, Counter.builder("delay.recovery.tasks")
                .description("Stuck tasks taken back: lease = their instance stopped renewing its claim, "
                        + "sweep = pending past the sweep grace but missing from the index")
                .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                .register(registry));
        }
    }

    @Override
    public void scheduled(String type) {
        meters(type).scheduled.increment();
    }

    @Override
    public void cancelled(String type) {
        meters(type).cancelled.increment();
    }

    @Override
    public void started(TaskContext task, long latenessMillis) {
        meters(task.type()).lateness.record(Math.max(0, latenessMillis), TimeUnit.MILLISECONDS);
    }

    @Override
    public void finished(TaskContext task, Outcome outcome, long durationNanos) {
        TypeMeters meters = meters(task.type());
        switch (outcome) {
            case SUCCESS -> meters.success.increment();
            case RETRY -> meters.retry.increment();
            case FAILED -> meters.failed.increment();
            case PARKED -> meters.parked.increment();
        }
        // 0 means no handler ran: the type has none, or the payload did not bind.
        Timer duration = meters.duration;
        if (duration != null && durationNanos > 0) {
            duration.record(durationNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void attemptFailed(TaskContext task, Failure failure, @Nullable Throwable error) {
        meters(task.type()).failures(failure, error == null ? "none" : exceptionName(error.getClass())).increment();
    }

    static String exceptionName(Class<?> type) {
        String simple = type.getSimpleName();
        return simple.isEmpty() ? type.getName() : simple; // anonymous classes have no simple name
    }

    @Override
    public void timeoutIgnored(TaskContext task, String thread) {
        meters(task.type()).timeoutsIgnored.increment();
    }

    @Override
    public void claimConflicts(int count) {
        claimConflicts.increment(count);
    }

    @Override
    public void migrated(int count) {
        migrated.increment(count);
    }

    @Override
    public void recovered(RecoveryReason reason, int count) {
        Counter counter = recovered.get(reason);
        if (counter != null) { // one per reason, made in the constructor
            counter.increment(count);
        }
    }

    @Override
    public void indexRebuilt(int tasks) {
        indexRebuilds.increment();
    }

    @Override
    public void workFailed(String work) {
        workFailures.computeIfAbsent(work, w -> Counter.builder("delay.engine.failures")
            .description("Failed runs of the engine's loops and periodic jobs, each tried again within half a "
                    + "second; the health names one that has not completed a run for a while")
            .tag("work", w)
            .register(registry)).increment();
    }

    private TypeMeters meters(String type) {
        return byType.computeIfAbsent(type, this::create);
    }

    private TypeMeters create(String type) {
        return new TypeMeters(type,
                Counter.builder("delay.tasks.scheduled")
                    .description("Tasks scheduled (created; a duplicate key creates none)")
                    .tag(TYPE_TAG, type)
                    .register(registry),
                completed(type, "success"), completed(type, "retry"), completed(type, "failed"),
                completed(type, "cancelled"), completed(type, "parked"),
                Counter.builder("delay.task.timeouts.ignored")
                    .description("Handlers that ran over their timeout and had not returned a second after their "
                            + "interrupt: their attempt was written as failed, and each holds a worker thread until "
                            + "it returns")
                    .tag(TYPE_TAG, type)
                    .register(registry),
                timesRuns ? Timer.builder("delay.task.duration")
                    .description("Time a handler took to run a task")
                    .tag(TYPE_TAG, type)
                    .register(registry) : null,
                Timer.builder("delay.task.lateness")
                    .description("How long after its due time a task started on a worker")
                    .tag(TYPE_TAG, type)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(LATENESS_MIN)
                    .maximumExpectedValue(LATENESS_MAX)
                    .register(registry));
    }

    private Counter completed(String type, String outcome) {
        return Counter.builder("delay.tasks.completed")
            .description("Task runs and cancellations by how they ended: success, retry (another attempt is "
                    + "scheduled), failed (dead letter), cancelled, parked (the payload did not bind)")
            .tag(TYPE_TAG, type)
            .tag("outcome", outcome)
            .register(registry);
    }

    private Counter failures(String type, Failure failure, String exception) {
        return Counter.builder("delay.task.failures")
            .description("Failed attempts by why they failed (the handler threw, the payload did not bind, no "
                    + "handler serves the type, the lease was lost, the handler ran over its timeout, a failure "
                    + "around the handler) and by the simple name of the exception's class")
            .tag(TYPE_TAG, type)
            .tag("reason", failure.name().toLowerCase(Locale.ROOT).replace('_', '-'))
            .tag("exception", exception)
            .register(registry);
    }

    private final class TypeMeters {

        private final String type;

        private final Counter scheduled;

        private final Counter success;

        private final Counter retry;

        private final Counter failed;

        private final Counter cancelled;

        private final Counter parked;

        private final Counter timeoutsIgnored;

        /** {@code null} when the run's observation times it. */
        private final @Nullable Timer duration;

        private final Timer lateness;

        /** Failure counters by reason and exception name; the names bounded by {@link #MAX_EXCEPTIONS_PER_TYPE}. */
        private final Map<String, Counter> failures = new ConcurrentHashMap<>();

        private final Set<String> exceptions = ConcurrentHashMap.newKeySet();

        TypeMeters(String type, Counter scheduled, Counter success, Counter retry, Counter failed,
                Counter cancelled, Counter parked, Counter timeoutsIgnored, @Nullable Timer duration, Timer lateness) {
            this.type = type;
            this.scheduled = scheduled;
            this.success = success;
            this.retry = retry;
            this.failed = failed;
            this.cancelled = cancelled;
            this.parked = parked;
            this.timeoutsIgnored = timeoutsIgnored;
            this.duration = duration;
            this.lateness = lateness;
        }

        Counter failures(Failure failure, String exception) {
            String name = admitted(exception) ? exception : "other";
            return failures.computeIfAbsent(failure + "/" + name, key -> TaskMeters.this.failures(type, failure, name));
        }

        private boolean admitted(String exception) {
            if (exceptions.contains(exception)) {
                return true;
            }
            synchronized (exceptions) {
                if (exceptions.size() < MAX_EXCEPTIONS_PER_TYPE) {
                    exceptions.add(exception);
                }
                return exceptions.contains(exception);
            }
        }
    }
}
