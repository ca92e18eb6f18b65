package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

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
import org.springframework.boot.convert.DurationStyle;

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

    /** Tasks in a page of {@link #unstarted} when the request names no limit. */
    static final int DEFAULT_PAGE = 100;

    /** The most tasks in a page of {@link #unstarted}: the queue's own bound on {@code findUnstarted}. */
    static final int MAX_PAGE = 1_000;

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
     * Re-runs a {@code FAILED} or {@code PARKED} task ({@code rerun}) or cancels a pending one ({@code cancel});
     * {@code null} when there is no task {@code id}. The answer says whether it was done and shows the task as it is
     * afterwards.
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
                    ? "Task " + id + " is " + after.status() + "; only a FAILED or PARKED task can be re-run"
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
            throw invalid("Unknown action '" + action
                    + "': use \"rerun\" (a FAILED or PARKED task) or \"cancel\" (a pending task)");
        }
    }

    /**
     * A page of the tasks of {@code type} that have not started (pending, or follow-ups waiting) whose key starts
     * with {@code keyPrefix}: what a {@link #bulk} change with the same prefix would touch, to look at before making
     * it, or to find the tasks of one customer or campaign. The web extension answers it at
     * {@code GET /actuator/delayqueue/types/{type}?keyPrefix=..&after=..&limit=..}. Tasks come by key, then id (those
     * without a key first when there is no prefix); a type no task has gives an empty page.
     *
     * @param type the task type
     * @param keyPrefix the start of the keys; {@code ""} for every keyed task, {@code null} for every task of the type
     * @param after the {@code next} of the previous page, a task id; {@code null} for the first page
     * @param limit at most this many tasks, 1 to {@value #MAX_PAGE}; {@code null} for {@value #DEFAULT_PAGE}
     * @return the page and the cursor of the next one
     * @throws InvalidEndpointRequestException (400) for a type or prefix no task can have, a limit out of bounds, or
     *     an {@code after} that is no task of this type
     */
    public TasksPageDescriptor unstarted(String type, @Nullable String keyPrefix, @Nullable Long after,
            @Nullable Integer limit) {
        int size = limit == null ? DEFAULT_PAGE : limit;
        if (size < 1 || size > MAX_PAGE) {
            throw invalid("limit must be 1 to " + MAX_PAGE + ", not " + size
                    + ": leave it out for " + DEFAULT_PAGE + " tasks a page");
        }
        TaskView cursor = after == null ? null : cursor(type, after);
        List<TaskView> page = badRequest(() -> queue.findUnstarted(type, keyPrefix, cursor, size));
        Long next = page.size() < size ? null : page.get(page.size() - 1).id();
        return new TasksPageDescriptor(type, keyPrefix, page.stream().map(TaskDescriptor::of).toList(), next);
    }

    /**
     * The task a page continues after: the keyset cursor is its key and id, which never change, so the next page
     * starts where the previous ended even when tasks were added, changed or cancelled meanwhile.
     */
    private TaskView cursor(String type, long after) {
        TaskView task = queue.find(after).orElseThrow(() -> invalid("after=" + after
                + " is no task (it may have been purged since): pass the 'next' of the previous page, or leave after "
                + "out to start again from the first page"));
        if (!task.type().equals(type)) {
            throw invalid("after=" + after + " is a task of type '" + task.type()
                    + "', not '" + type + "': pass the 'next' of the previous page of this type");
        }
        return task;
    }

    /**
     * Changes every task of {@code type} that has not started and whose key starts with {@code keyPrefix} in one
     * request, where doing it task by task would take an operator thousands: {@code cancel} ("the customer closed
     * the account, drop their reminders"), {@code reschedule} to {@code dueAt} ("the campaign moved to Monday 9:00"),
     * or {@code shift} by {@code by} ("the mail service is down for an hour, push its tasks out"). The queue works in
     * batches of 500 tasks, each committed by itself, so the consumers never wait on it; a task claimed meanwhile
     * runs. And {@code rerun}, with {@code "all": true}: every {@code PARKED} task of the type (its payload did not
     * bind) runs again from its first attempt, once a release that reads the payloads (a payload upcaster) is out;
     * one whose key a newer task holds stays parked. Or {@code pause} the type on every instance (no instance claims
     * its tasks, which stay pending; for a downstream service that is down, say) and {@code resume} it (its overdue
     * tasks run at once); {@code changed} is then 1 when the type's state changed, else 0. The web extension answers
     * it at {@code POST /actuator/delayqueue/types/{type}}.
     *
     * @param type the task type
     * @param action {@code cancel}, {@code reschedule}, {@code shift}, {@code rerun}, {@code pause} or {@code resume}
     * @param keyPrefix the start of the keys ({@code ""} for every keyed task); required unless {@code all}, and
     *     left out for {@code pause} and {@code resume}
     * @param all {@code true} for every task of the type, with or without a key, instead of a prefix
     * @param dueAt {@code reschedule}: the new due time, an ISO-8601 instant ({@code 2026-12-07T09:00:00Z})
     * @param by {@code shift}: how far, a duration such as {@code 10m}, {@code -1h} or {@code PT10M}
     * @return how many tasks changed
     * @throws InvalidEndpointRequestException (400) for an unknown action, a missing or surplus field, or a value the
     *     queue refuses
     */
    public BulkDescriptor bulk(String type, @Nullable String action, @Nullable String keyPrefix,
            @Nullable Boolean all, @Nullable String dueAt, @Nullable String by) {
        BulkAction what = BulkAction.parse(action);
        if (what == BulkAction.PAUSE || what == BulkAction.RESUME) {
            return pauseOrResume(type, what, keyPrefix, all, dueAt, by);
        }
        boolean every = Boolean.TRUE.equals(all);
        if (every == (keyPrefix != null)) {
            throw invalid(every
                    ? "Give keyPrefix or \"all\": true, not both"
                    : "keyPrefix is missing: give the start of the keys of the tasks to " + what.verb
                            + " (\"\" for every task with a key), or \"all\": true for every task of type '" + type
                            + "'");
        }
        String prefix = every ? null : keyPrefix;
        what.refuseOthers(dueAt, by);
        if (what == BulkAction.RERUN && prefix != null) {
            throw invalid("rerun re-runs every parked task of type '" + type + "': give \"all\": true, not a "
                    + "keyPrefix");
        }
        long changed = badRequest(() -> switch (what) {
            case CANCEL -> queue.cancelAll(type, prefix);
            case RESCHEDULE -> queue.rescheduleAll(type, prefix, instant(dueAt));
            case SHIFT -> queue.shiftAll(type, prefix, duration(by));
            case RERUN -> runtime.rerunParked(type);
            case PAUSE, RESUME -> throw new IllegalStateException(what + " was answered above");
        });
        String tasks = changed + (changed == 1 ? " task" : " tasks") + " of type '" + type + "'"
                + (prefix == null ? "" : " whose key starts with '" + prefix + "'");
        String message = switch (what) {
            case CANCEL -> "Cancelled " + tasks;
            case RESCHEDULE -> "Moved " + tasks + " to " + instant(dueAt);
            case SHIFT -> "Shifted " + tasks + " by " + Texts.duration(duration(by));
            case RERUN -> "Re-ran " + changed + " parked " + (changed == 1 ? "task" : "tasks") + " of type '" + type
                    + "'; they are due now, with their attempts reset";
            case PAUSE, RESUME -> throw new IllegalStateException(what + " was answered above");
        };
        return new BulkDescriptor(type, prefix, what.name().toLowerCase(Locale.ROOT), changed, message);
    }

    /** A pause or resume of the whole type, on every instance: it takes no prefix, no time, no duration. */
    private BulkDescriptor pauseOrResume(String type, BulkAction what, @Nullable String keyPrefix,
            @Nullable Boolean all, @Nullable String dueAt, @Nullable String by) {
        if (keyPrefix != null || all != null) {
            throw invalid(what.verb + " applies to every task of type '" + type + "': leave out keyPrefix and all");
        }
        what.refuseOthers(dueAt, by);
        boolean changed = badRequest(() -> what == BulkAction.PAUSE ? runtime.pause(type) : runtime.resume(type));
        String message = what == BulkAction.PAUSE
                ? (changed ? "Paused" : "Already paused") + " type '" + type + "': no instance claims its tasks "
                        + "(within a second), they stay pending until it is resumed"
                : (changed ? "Resumed type '" + type + "': its tasks run again, overdue ones at once"
                        : "Type '" + type + "' was not paused");
        return new BulkDescriptor(type, null, what.name().toLowerCase(Locale.ROOT), changed ? 1 : 0, message);
    }

    private static Instant instant(@Nullable String dueAt) {
        try {
            return Instant.parse(Objects.requireNonNull(dueAt).trim());
        }
        catch (DateTimeParseException ex) {
            throw invalid("dueAt '" + dueAt + "' is no ISO-8601 instant: write it as "
                    + "2026-12-07T09:00:00Z, or with an offset, 2026-12-07T10:00:00+01:00");
        }
    }

    private static Duration duration(@Nullable String by) {
        try {
            return DurationStyle.detectAndParse(Objects.requireNonNull(by).trim());
        }
        catch (IllegalArgumentException ex) {
            throw invalid("by '" + by + "' is no duration: write it as 10m, -1h, 90s or "
                    + "PT10M (negative moves the tasks earlier)");
        }
    }

    /**
     * A 400 whose reason is the whole message: over HTTP Spring Boot answers with the reason (shown with
     * {@code spring.web.error.include-message=always}), and it must say what was wrong and what to send instead.
     */
    static InvalidEndpointRequestException invalid(String message) {
        return new InvalidEndpointRequestException(message, message);
    }

    /** What the queue refuses as bad input is the request's fault: a 400 with the queue's own message. */
    private static <T> T badRequest(Supplier<T> call) {
        try {
            return call.get();
        }
        catch (IllegalArgumentException ex) {
            throw invalid(String.valueOf(ex.getMessage()));
        }
    }

    enum BulkAction {

        CANCEL("cancel", null), RESCHEDULE("move", "dueAt"), SHIFT("shift", "by"), RERUN("re-run", null),
        PAUSE("pause", null), RESUME("resume", null);

        final String verb;

        /** The one request field the action needs besides the prefix, if any. */
        final @Nullable String needs;

        BulkAction(String verb, @Nullable String needs) {
            this.verb = verb;
            this.needs = needs;
        }

        static BulkAction parse(@Nullable String action) {
            if (action != null) {
                for (BulkAction candidate : values()) {
                    if (candidate.name().equalsIgnoreCase(action.trim())) {
                        return candidate;
                    }
                }
            }
            throw invalid("Unknown action '" + action + "': use \"cancel\", "
                    + "\"reschedule\" (with \"dueAt\"), \"shift\" (with \"by\") or \"rerun\" (the parked tasks, "
                    + "with \"all\": true), \"pause\" or \"resume\"");
        }

        /** A missing field this action needs, or one it would ignore, is a mistake the operator should hear of. */
        void refuseOthers(@Nullable String dueAt, @Nullable String by) {
            check("dueAt", dueAt, "an ISO-8601 instant such as 2026-12-07T09:00:00Z");
            check("by", by, "a duration such as 10m, -1h or PT10M");
        }

        private void check(String field, @Nullable String value, String example) {
            String lower = name().toLowerCase(Locale.ROOT);
            if (field.equals(needs) && (value == null || value.isBlank())) {
                throw invalid(lower + " needs \"" + field + "\": " + example);
            }
            if (!field.equals(needs) && value != null) {
                throw invalid("\"" + field + "\" does not apply to " + lower + ": "
                        + (needs == null ? "leave it out" : "it takes \"" + needs + "\""));
            }
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

    /**
     * A page of tasks that have not started.
     *
     * @param type the task type asked for
     * @param keyPrefix the prefix asked for, {@code null} for every task of the type
     * @param tasks the tasks, by key then id
     * @param next the {@code after} of the next page, or {@code null} when this page is the last
     */
    public record TasksPageDescriptor(String type, @Nullable String keyPrefix, List<TaskDescriptor> tasks,
            @Nullable Long next) implements OperationResponseBody {
    }

    /**
     * What a bulk change did.
     *
     * @param type the task type
     * @param keyPrefix the prefix, {@code null} for every task of the type
     * @param action {@code cancel}, {@code reschedule}, {@code shift} or {@code rerun}
     * @param changed how many tasks this request changed (0 for a type or prefix no pending task has)
     * @param message what happened, in one sentence
     */
    public record BulkDescriptor(String type, @Nullable String keyPrefix, String action, long changed,
            String message) implements OperationResponseBody {
    }
}
