package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.store.TaskInspector.CumulativeCounts;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code delayqueue} actuator endpoint: what the queue holds and what to tune ({@code GET /actuator/delayqueue}),
 * one task ({@code GET /actuator/delayqueue/{id}}), and the two repairs an operator makes by hand
 * ({@code POST /actuator/delayqueue/{id}} with {@code {"action": "rerun"}} for a dead letter, or
 * {@code {"action": "cancel"}} for a pending task). Every answer is read from the database when asked, never cached;
 * the payload of a task is never shown, it may hold personal data.
 * <p>
 * Its default access is read-only (Spring Boot's endpoint access control, as Boot keeps its own {@code shutdown}
 * endpoint off by default): a cancel stops a business action, an order's cancellation say, so exposing the endpoint
 * must not hand that to whoever reaches the actuator. {@code management.endpoint.delayqueue.access=unrestricted}
 * opens the writes, for an actuator the application secures.
 */
@Endpoint(id = "delayqueue", defaultAccess = Access.READ_ONLY)
public class DelayQueueEndpoint {

    /** The most recent tasks whose requested delays make the histogram. */
    static final int DELAY_SAMPLE = 10_000;

    /** The most urgent tasks per status whose types are counted. */
    static final int TYPE_SAMPLE = 1_000;

    private final TaskInspector inspector;

    private final DelayQueue queue;

    private final DelayQueueRuntime runtime;

    private final Duration migrationInterval;

    /**
     * @param runtime the queue whose tasks this shows and changes
     * @param migrationInterval {@code delay.hybrid.migration-interval}, which the threshold advice accounts for
     */
    public DelayQueueEndpoint(DelayQueueRuntime runtime, Duration migrationInterval) {
        this.runtime = runtime;
        this.inspector = runtime.inspector();
        this.queue = runtime.queue();
        this.migrationInterval = migrationInterval;
    }

    @ReadOperation
    public QueueDescriptor queue() {
        long now = runtime.now().toEpochMilli();
        Map<TaskStatus, Long> counts = new EnumMap<>(TaskStatus.class);
        List<TaskStatus> estimated = new ArrayList<>();
        inspector.countByStatus(EnumSet.allOf(TaskStatus.class)).forEach((status, count) -> {
            counts.put(status, count.value());
            if (count.estimated()) {
                estimated.add(status);
            }
        });
        Map<String, Map<TaskStatus, Long>> types = new TreeMap<>();
        for (TaskInspector.TypeCount row : inspector.countByTypeAndStatus(EnumSet.allOf(TaskStatus.class),
                TYPE_SAMPLE)) {
            types.computeIfAbsent(row.type(), t -> new EnumMap<>(TaskStatus.class)).put(row.status(), row.count());
        }
        TaskInspector.Overdue overdue = OverdueTasks.read(inspector, now);
        Long oldest = overdue.oldestDueAt();
        OverdueDescriptor overdueDescriptor = new OverdueDescriptor(overdue.count().value(),
                overdue.count().estimated(), oldest == null ? null : Instant.ofEpochMilli(oldest),
                Texts.duration(OverdueTasks.oldestAge(overdue, now)));

        List<Long> bounds = ThresholdAdvisor.BOUNDS.stream().map(Duration::toMillis).toList();
        CumulativeCounts requested = inspector.requestedDelays(bounds, DELAY_SAMPLE);
        Duration current = runtime.hybridThreshold();
        List<Long> pendingBounds = new ArrayList<>(bounds);
        pendingBounds.add(current == null ? 0L : current.toMillis());
        CumulativeCounts pendingAll = inspector.pendingDueWithin(now, pendingBounds);
        CumulativeCounts pending = new CumulativeCounts(pendingAll.total(),
                pendingAll.atOrBelow().subList(0, bounds.size()));
        long pendingWithinCurrent = pendingAll.atOrBelow().get(bounds.size());
        ThresholdAdvisor.Advice advice = ThresholdAdvisor.advise(requested, pending, migrationInterval, current,
                pendingWithinCurrent);
        ThresholdDescriptor threshold = new ThresholdDescriptor(current == null ? null : Texts.duration(current),
                current == null ? null : pendingWithinCurrent,
                current == null ? null : pendingWithinCurrent * ThresholdAdvisor.BYTES_PER_TASK,
                Texts.duration(advice.suggested()), advice.redisTasks(), advice.redisBytes(), pendingAll.estimated(),
                advice.reason());

        String mode = runtime.mode().name().toLowerCase(Locale.ROOT);
        return new QueueDescriptor(mode, Instant.ofEpochMilli(now), counts, estimated, types, TYPE_SAMPLE,
                overdueDescriptor, histogram(requested), threshold);
    }

    private static DelaysDescriptor histogram(CumulativeCounts requested) {
        List<BucketDescriptor> buckets = new ArrayList<>();
        long previous = 0;
        for (int i = 0; i < ThresholdAdvisor.BOUNDS.size(); i++) {
            long atOrBelow = requested.atOrBelow().get(i);
            buckets.add(new BucketDescriptor(Texts.duration(ThresholdAdvisor.BOUNDS.get(i)), atOrBelow - previous,
                    share(atOrBelow, requested.total())));
            previous = atOrBelow;
        }
        buckets.add(new BucketDescriptor("+Inf", requested.total() - previous, requested.total() == 0 ? 0 : 1));
        return new DelaysDescriptor(requested.total(), buckets);
    }

    private static double share(long part, long total) {
        return total == 0 ? 0 : Math.round(10_000.0 * part / total) / 10_000.0;
    }

    @ReadOperation
    public @Nullable TaskDescriptor task(@Selector long id) {
        return queue.find(id).map(TaskDescriptor::of).orElse(null);
    }

    /**
     * Re-runs a {@code FAILED} task ({@code rerun}) or cancels a pending one ({@code cancel}); {@code null} when there
     * is no task {@code id}. The answer says whether it was done and shows the task as it is afterwards.
     */
    @WriteOperation
    public @Nullable ActionDescriptor act(@Selector long id, String action) {
        Action what = Action.parse(action);
        Optional<TaskView> before = queue.find(id);
        if (before.isEmpty()) {
            return null;
        }
        boolean done;
        String refused = null;
        try {
            done = switch (what) {
                case RERUN -> runtime.rerun(id);
                case CANCEL -> queue.cancel(id);
            };
        }
        catch (IllegalStateException ex) { // a re-run whose key another live task holds
            done = false;
            refused = ex.getMessage();
        }
        TaskView after = queue.find(id).orElse(before.get());
        String message;
        if (refused != null) {
            message = refused;
        }
        else if (done) {
            message = what == Action.RERUN ? "Task " + id + " is due again now, with its attempts reset"
                    : "Task " + id + " is cancelled";
        }
        else {
            message = what == Action.RERUN
                    ? "Task " + id + " is " + after.status() + "; only a FAILED task can be re-run"
                    : "Task " + id + " is " + after.status()
                            + "; only a pending (SCHEDULED or QUEUED) task can be cancelled";
        }
        return new ActionDescriptor(id, what.name().toLowerCase(Locale.ROOT), done, message, TaskDescriptor.of(after));
    }

    enum Action {

        RERUN, CANCEL;

        static Action parse(@Nullable String action) {
            if (action != null) {
                for (Action candidate : values()) {
                    if (candidate.name().equalsIgnoreCase(action.trim())) {
                        return candidate;
                    }
                }
            }
            throw new InvalidEndpointRequestException("Unknown action '" + action
                    + "': use \"rerun\" (a FAILED task) or \"cancel\" (a pending task)", "Unknown action");
        }
    }

    /**
     * The state of the queue.
     *
     * @param mode {@code hybrid} or {@code jdbc}
     * @param now the queue's clock when this was read
     * @param counts tasks per status: exact up to 10,000, the database's estimate beyond
     * @param estimatedCounts the statuses whose count is an estimate
     * @param types tasks per type and status, among the {@code typesSampledPerStatus} most urgent tasks of each
     *     status (all of them when a status has fewer)
     * @param typesSampledPerStatus how many tasks of each status {@code types} looked at, at most
     * @param overdue pending tasks more than a second past due
     * @param requestedDelays the histogram of requested delays
     * @param threshold the hybrid threshold in force and the suggested one
     */
    public record QueueDescriptor(String mode, Instant now, Map<TaskStatus, Long> counts,
            List<TaskStatus> estimatedCounts, Map<String, Map<TaskStatus, Long>> types, int typesSampledPerStatus,
            OverdueDescriptor overdue, DelaysDescriptor requestedDelays, ThresholdDescriptor threshold)
            implements OperationResponseBody {
    }

    /**
     * @param count pending tasks more than a second past due
     * @param estimated whether {@code count} is the database's estimate (over 10,000)
     * @param oldestDueAt when the oldest of them fell due, or {@code null}
     * @param oldestAge how long ago that was ({@code 0s} when none is overdue)
     */
    public record OverdueDescriptor(long count, boolean estimated, @Nullable Instant oldestDueAt, String oldestAge) {
    }

    /**
     * @param sampled tasks whose requested delay ({@code due_at - created_at}) was counted
     * @param buckets counts per bucket, ascending
     */
    public record DelaysDescriptor(long sampled, List<BucketDescriptor> buckets) {
    }

    /**
     * @param upTo the bucket's upper bound (inclusive), the previous bucket's bound exclusive
     * @param count requested delays in this bucket
     * @param cumulativeShare share of all sampled delays at or below {@code upTo}, from 0 to 1
     */
    public record BucketDescriptor(String upTo, long count, double cumulativeShare) {
    }

    /**
     * @param current {@code delay.hybrid.threshold}, or {@code null} in jdbc mode
     * @param currentRedisTasks pending tasks due within the current threshold
     * @param currentRedisBytes their estimated Redis memory
     * @param suggested the suggested threshold
     * @param suggestedRedisTasks pending tasks due within the suggested threshold
     * @param suggestedRedisBytes their estimated Redis memory
     * @param estimated whether the pending counts behind these figures are the database's estimates
     * @param reason why, in one sentence
     */
    public record ThresholdDescriptor(@Nullable String current, @Nullable Long currentRedisTasks,
            @Nullable Long currentRedisBytes, String suggested, long suggestedRedisTasks, long suggestedRedisBytes,
            boolean estimated, String reason) {
    }

    /**
     * One task, without its payload.
     *
     * @param id the task id
     * @param type the handler type
     * @param key the business key, or {@code null}
     * @param status the status
     * @param dueAt when it is (or was) due
     * @param attempts attempts made
     * @param maxAttempts attempts allowed, or {@code null} for the handler's setting
     * @param lastError the last failure
     * @param createdAt when it was scheduled
     * @param updatedAt when its row last changed
     * @param errors the errors of its latest failed attempts, oldest first ({@link TaskView#errors()})
     */
    public record TaskDescriptor(long id, String type, @Nullable String key, TaskStatus status, Instant dueAt,
            int attempts, @Nullable Integer maxAttempts, @Nullable String lastError, Instant createdAt,
            Instant updatedAt, List<TaskView.FailedAttempt> errors) implements OperationResponseBody {

        /** A task that has not failed. */
        public TaskDescriptor(long id, String type, @Nullable String key, TaskStatus status, Instant dueAt,
                int attempts, @Nullable Integer maxAttempts, @Nullable String lastError, Instant createdAt,
                Instant updatedAt) {
            this(id, type, key, status, dueAt, attempts, maxAttempts, lastError, createdAt, updatedAt, List.of());
        }

        static TaskDescriptor of(TaskView task) {
            return new TaskDescriptor(task.id(), task.type(), task.key(), task.status(), task.dueAt(),
                    task.attempts(), task.maxAttempts(), task.lastError(), task.createdAt(), task.updatedAt(),
                    task.errors());
        }
    }

    /**
     * @param id the task id
     * @param action {@code rerun} or {@code cancel}
     * @param done whether the task changed
     * @param message what happened, or why nothing did
     * @param task the task afterwards
     */
    public record ActionDescriptor(long id, String action, boolean done, String message, TaskDescriptor task)
            implements OperationResponseBody {
    }
}
