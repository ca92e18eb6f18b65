package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.store.TaskInspector;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Gauges of what the queue holds, read from a snapshot that a job of the runtime ({@link DelayQueueRuntime#every})
 * refreshes every interval:
 * a scrape never queries the database or Redis, however often it comes and however many registries there are. A value
 * that could not be read is {@code NaN} until the next refresh that succeeds, so a stale number never passes for a
 * fresh one.
 *
 * <ul>
 * <li>{@code delay.tasks.pending} {status = scheduled | queued | running}: unfinished tasks</li>
 * <li>{@code delay.tasks.overdue}: pending tasks more than a second past due;
 * {@code delay.tasks.overdue.oldest}: how late the oldest of them is, in seconds</li>
 * <li>{@code delay.tasks.unserved}, on an instance that runs tasks: pending tasks more than a second past due of
 * types it has no handler for, which it never claims (they wait for an instance, or another application on the same
 * table, that runs them); {@code delay.tasks.unserved.oldest}: how late the oldest of them is, in seconds. A type
 * nobody serves shows here as a count that stays and an age that grows: a rolling deploy's new type before its first
 * instance is up, a typo in a type, a handler never deployed</li>
 * <li>{@code delay.tasks.dead.letters}: {@code FAILED} tasks kept, waiting for someone to act</li>
 * <li>{@code delay.tasks.parked}: {@code PARKED} tasks, whose payload did not bind, waiting for a re-run</li>
 * <li>{@code delay.index.size} {shard}: ids in each shard of the Redis time index (hybrid mode)</li>
 * </ul>
 */
public final class QueueGauges implements MeterBinder, SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(QueueGauges.class);

    private static final Set<TaskStatus> COUNTED = EnumSet.of(TaskStatus.SCHEDULED, TaskStatus.QUEUED,
            TaskStatus.RUNNING, TaskStatus.FAILED, TaskStatus.PARKED);

    private static final Set<TaskStatus> PENDING = EnumSet.of(TaskStatus.SCHEDULED, TaskStatus.QUEUED,
            TaskStatus.RUNNING);

    private final TaskInspector inspector;

    private final DelayQueueRuntime runtime;

    private final Duration interval;

    private final int shards;

    /** Whether this instance runs tasks, so that "types it does not serve" means something. */
    private final boolean runsTasks;

    private volatile Snapshot snapshot;

    private volatile boolean failing;

    private @Nullable AutoCloseable refreshing;

    /**
     * @param runtime the queue to measure
     * @param interval how often the gauges read the database and the index
     */
    public QueueGauges(DelayQueueRuntime runtime, Duration interval) {
        this.runtime = runtime;
        this.inspector = runtime.inspector();
        this.interval = interval;
        this.shards = runtime.indexShards();
        this.runsTasks = runtime.status().instanceId() != null;
        this.snapshot = Snapshot.unknown(shards);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (TaskStatus status : PENDING) {
            gauge("delay.tasks.pending", s -> s.count(status),
                    "Unfinished tasks: scheduled (database only), queued (also in the Redis index), running")
                .tag("status", status.name().toLowerCase(Locale.ROOT))
                .register(registry);
        }
        gauge("delay.tasks.overdue", Snapshot::overdue, "Pending tasks more than a second past their due time")
            .register(registry);
        gauge("delay.tasks.overdue.oldest", Snapshot::oldestOverdueSeconds,
                "How long ago the oldest overdue task fell due; 0 when none is overdue")
            .baseUnit("seconds")
            .register(registry);
        if (runsTasks) {
            gauge("delay.tasks.unserved", Snapshot::unserved,
                    "Pending tasks more than a second past due of types this instance has no handler for: they wait "
                            + "for an instance that runs them")
                .register(registry);
            gauge("delay.tasks.unserved.oldest", Snapshot::oldestUnservedSeconds,
                    "How long ago the oldest task of a type this instance does not serve fell due; 0 when none")
                .baseUnit("seconds")
                .register(registry);
        }
        gauge("delay.tasks.dead.letters", s -> s.count(TaskStatus.FAILED),
                "FAILED tasks kept in the table (dead letters), waiting to be re-run or purged")
            .register(registry);
        gauge("delay.tasks.parked", s -> s.count(TaskStatus.PARKED),
                "PARKED tasks: their payload did not bind to their handler; each waits for a re-run once a release "
                        + "(a payload upcaster) reads it")
            .register(registry);
        for (int shard = 0; shard < shards; shard++) {
            int index = shard;
            gauge("delay.index.size", s -> s.indexSize(index),
                    "Task ids in a shard of the Redis time index")
                .tag("shard", Integer.toString(shard))
                .register(registry);
        }
    }

    private Gauge.Builder<QueueGauges> gauge(String name, ToDoubleFunction<Snapshot> value, String description) {
        return Gauge.builder(name, this, gauges -> value.applyAsDouble(gauges.snapshot))
            .description(description)
            .strongReference(true);
    }

    /** Reads the database and the index once; called on the refresh thread, and by callers that need current values. */
    public void refresh() {
        long now = runtime.now().toEpochMilli();
        Map<TaskStatus, Long> counts = null;
        TaskInspector.Overdue overdue = null;
        TaskInspector.Overdue unserved = null;
        try {
            counts = new EnumMap<>(TaskStatus.class);
            for (Map.Entry<TaskStatus, TaskInspector.Count> count : inspector.countByStatus(COUNTED).entrySet()) {
                counts.put(count.getKey(), count.getValue().value());
            }
            overdue = OverdueTasks.read(inspector, now);
            if (runsTasks) {
                unserved = OverdueTasks.unserved(inspector, now, runtime.status().servedTypes());
            }
            if (failing) {
                failing = false;
                log.info("Delay queue gauges read the task database again");
            }
        }
        catch (RuntimeException ex) {
            if (!failing) {
                failing = true;
                log.warn("Delay queue gauges could not read the task database ({}); they show NaN until it answers",
                        ex.toString());
            }
        }
        double[] sizes = new double[shards];
        Arrays.fill(sizes, Double.NaN);
        if (runtime.indexAnswers()) {
            try {
                for (int shard = 0; shard < shards; shard++) {
                    sizes[shard] = runtime.indexShardSize(shard);
                }
            }
            catch (RuntimeException ex) {
                // the engine notices and logs an unreachable index itself; NaN says we could not read it
                log.debug("Could not read the time index size", ex);
            }
        }
        snapshot = new Snapshot(counts, overdue == null ? Double.NaN : overdue.count().value(),
                overdue == null ? Double.NaN : OverdueTasks.oldestAge(overdue, now).toMillis() / 1000.0,
                unserved == null ? Double.NaN : unserved.count().value(),
                unserved == null ? Double.NaN : OverdueTasks.oldestAge(unserved, now).toMillis() / 1000.0, sizes,
                Instant.ofEpochMilli(now));
    }

    /** When the snapshot the gauges show was taken, or {@code null} before the first refresh. */
    @Nullable Instant lastRefresh() {
        return snapshot.takenAt();
    }

    @Override
    public synchronized void start() {
        if (refreshing != null) {
            return;
        }
        refreshing = runtime.every("gauge refresh", interval, this::refresh);
    }

    @Override
    public synchronized void stop() {
        AutoCloseable running = refreshing;
        refreshing = null;
        if (running != null) {
            try {
                running.close();
            }
            catch (Exception ex) {
                log.debug("Could not stop the gauge refresh", ex);
            }
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return refreshing != null;
    }

    private record Snapshot(@Nullable Map<TaskStatus, Long> counts, double overdue, double oldestOverdueSeconds,
            double unserved, double oldestUnservedSeconds, double[] indexSizes, @Nullable Instant takenAt) {

        Snapshot {
            counts = counts == null ? null : Map.copyOf(counts);
        }

        static Snapshot unknown(int shards) {
            double[] sizes = new double[shards];
            Arrays.fill(sizes, Double.NaN);
            return new Snapshot(null, Double.NaN, Double.NaN, Double.NaN, Double.NaN, sizes, null);
        }

        double count(TaskStatus status) {
            Map<TaskStatus, Long> known = counts;
            return known == null ? Double.NaN : known.getOrDefault(status, 0L);
        }

        double indexSize(int shard) {
            return indexSizes[shard];
        }
    }
}
