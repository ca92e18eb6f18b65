package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.store.TaskInspector;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the queue, as {@code delayQueue} under {@code /actuator/health}. DOWN when the task database does not
 * answer within the timeout (the query runs on a thread of its own, so a hung connection pool cannot hang the health
 * endpoint), when one of the engine's loops or jobs has stalled (lease renewal, say: {@code stalled} names it, and
 * {@code engine} says when each last completed a run), or when {@code delay.health.max-overdue} is set and the oldest
 * overdue task is later than that. On an instance that runs tasks, {@code unservedTasks} and {@code oldestUnservedAge}
 * say how many overdue tasks are of types it has no handler for, and how late the oldest is: it never claims them,
 * they wait for an instance that runs them, and they do not change the status here (another application on the same
 * table may be about to run them); {@code pausedTypes} lists the types it does not claim because they are paused,
 * {@code typesAtClusterLimit} those whose cluster-wide limit its last claims found reached (their due tasks wait for a
 * slot, which is no fault). An unreachable Redis alone is not DOWN: the queue keeps running tasks from the database,
 * less precisely, and says so in {@code redisReachable}.
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator implements AutoCloseable {

    private final DelayQueueRuntime runtime;

    private final TaskInspector inspector;

    private final @Nullable Duration maxOverdue;

    private final Duration timeout;

    private final ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "delay-health");
        thread.setDaemon(true);
        return thread;
    });

    /** The check still running, shared by callers that come while it runs, so stuck checks never pile up. */
    private @Nullable Future<Check> inFlight;

    /** What one look at the database found. */
    private record Check(TaskInspector.Overdue overdue, TaskInspector.@Nullable Overdue unserved) {
    }

    /**
     * @param runtime the queue to check
     * @param maxOverdue {@code delay.health.max-overdue}
     * @param timeout how long to wait for the database
     */
    public DelayQueueHealthIndicator(DelayQueueRuntime runtime, @Nullable Duration maxOverdue, Duration timeout) {
        super("The delay queue's task database did not answer");
        this.runtime = runtime;
        this.inspector = runtime.inspector();
        this.maxOverdue = maxOverdue;
        this.timeout = timeout;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        DelayQueueRuntime.Status status = runtime.status();
        builder.withDetail("mode", status.mode().name().toLowerCase(Locale.ROOT));
        if (status.indexAnswers() != null) {
            builder.withDetail("redisReachable", status.indexAnswers());
        }
        List<String> stalled = new ArrayList<>();
        if (status.instanceId() != null) {
            Map<String, String> work = new LinkedHashMap<>();
            for (DelayQueueRuntime.Work each : status.work()) {
                work.put(each.name(), "last run " + each.sinceLastRun().toMillis() + " ms ago");
                if (each.stalled()) {
                    stalled.add(each.name());
                }
            }
            builder.withDetail("instance", status.instanceId())
                .withDetail("pausedTypes", status.pausedTypes().stream().sorted().toList())
                .withDetail("typesAtClusterLimit", status.typesAtClusterLimit().stream().sorted().toList())
                .withDetail("heldTasks", status.heldTasks())
                .withDetail("capacity", status.capacity())
                .withDetail("engine", work);
        }
        if (!stalled.isEmpty()) {
            builder.down().withDetail("stalled", stalled).withDetail("reason", "the engine's " + String.join(", ",
                    stalled) + " completed no run for a long while (see the log): a hung connection, or failing");
            return;
        }
        Check check = overdue(status);
        TaskInspector.Overdue overdue = check.overdue();
        long now = runtime.now().toEpochMilli();
        Duration oldestAge = OverdueTasks.oldestAge(overdue, now);
        builder.withDetail("overdueTasks", overdue.count().value())
            .withDetail("oldestOverdueAge", oldestAge.toString());
        TaskInspector.Overdue unserved = check.unserved();
        if (unserved != null) {
            builder.withDetail("unservedTasks", unserved.count().value())
                .withDetail("oldestUnservedAge", OverdueTasks.oldestAge(unserved, now).toString());
        }
        if (overdue.count().estimated()) {
            builder.withDetail("overdueTasksEstimated", true);
        }
        if (maxOverdue != null) {
            builder.withDetail("maxOverdue", maxOverdue.toString());
            if (oldestAge.compareTo(maxOverdue) > 0) {
                builder.down().withDetail("reason", "the oldest overdue task fell due " + oldestAge
                        + " ago, more than delay.health.max-overdue (" + maxOverdue + ")");
                return;
            }
        }
        builder.up();
    }

    private Check overdue(DelayQueueRuntime.Status status) throws Exception {
        Future<Check> check = check(status);
        try {
            return check.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (TimeoutException ex) {
            throw new TimeoutException("The task database did not answer within " + timeout);
        }
        catch (ExecutionException ex) {
            throw (ex.getCause() instanceof Exception cause) ? cause : ex;
        }
    }

    private synchronized Future<Check> check(DelayQueueRuntime.Status status) {
        Future<Check> running = inFlight;
        if (running == null || running.isDone()) {
            running = executor.submit(() -> {
                long now = runtime.now().toEpochMilli();
                return new Check(OverdueTasks.read(inspector, now), status.instanceId() == null ? null
                        : OverdueTasks.unserved(inspector, now, status.servedTypes()));
            });
            inFlight = running;
        }
        return running;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
