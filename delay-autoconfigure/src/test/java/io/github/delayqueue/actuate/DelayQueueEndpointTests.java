package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.actuate.DelayQueueEndpoint.ActionDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.BucketDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.BulkDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.QueueDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.TaskDescriptor;
import io.github.delayqueue.actuate.DelayQueueEndpoint.TasksPageDescriptor;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;
import io.github.delayqueue.runtime.TestScheduler;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import io.github.delayqueue.test.SettableClock;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link DelayQueueEndpoint} and its web extension without a context or a database, as Spring Boot tests its
 * endpoints: the answers built from what the inspector reads (here {@link InMemoryTaskInspector} on an in-memory
 * table, overridden where a test needs the database's estimates), the two repairs, and the pages and bulk changes of
 * a type's tasks. Over HTTP on a real database:
 * {@code DelayQueueEndpointIT}.
 */
class DelayQueueEndpointTests {

    private static final long T0 = 1_750_000_000_000L;

    private final SettableClock applicationClock = SettableClock.atMillis(T0);

    private final InMemoryTaskStore store = new InMemoryTaskStore(applicationClock);

    private final DelayQueueEndpoint endpoint = endpoint(new InMemoryTaskInspector(store), null);

    /** The endpoint of a producer-only runtime on the in-memory store: hybrid with a threshold, jdbc without. */
    private DelayQueueEndpoint endpoint(TaskInspector inspector, @Nullable Duration hybridThreshold) {
        DelayQueueRuntimeBuilder builder = DelayQueueRuntime.builder(store, inspector)
            .clock(applicationClock)
            .runsTasks(false)
            .scheduler(TestScheduler.SHARED);
        if (hybridThreshold != null) {
            builder.timeIndex(new InMemoryTimeIndex(1)).hybridThreshold(hybridThreshold);
        }
        return new DelayQueueEndpoint(builder.build(), Duration.ofSeconds(30));
    }

    // --- the queue --------------------------------------------------------------------------------------------

    @Test
    void theQueueIsCountedPerStatusAndPerTypeAndStatus() {
        pending("order.cancel", T0 + 60_000, TaskStatus.SCHEDULED);
        pending("order.cancel", T0 + 90_000, TaskStatus.SCHEDULED);
        pending("mail.send", T0 + 1_000, TaskStatus.QUEUED);
        failed("order.cancel", "boom");
        store.cancel(pending("mail.send", T0 + 1_000, TaskStatus.QUEUED), T0);

        QueueDescriptor queue = endpoint.queue();

        assertThat(queue.mode()).isEqualTo("jdbc");
        assertThat(queue.now()).isEqualTo(Instant.ofEpochMilli(T0));
        assertThat(queue.counts()).containsExactlyInAnyOrderEntriesOf(Map.of(TaskStatus.SCHEDULED, 2L,
                TaskStatus.QUEUED, 1L, TaskStatus.RUNNING, 0L, TaskStatus.WAITING, 0L, TaskStatus.SUCCEEDED, 0L,
                TaskStatus.FAILED, 1L, TaskStatus.CANCELLED, 1L, TaskStatus.PARKED, 0L));
        assertThat(queue.estimatedCounts()).isEmpty();
        assertThat(queue.types()).containsOnlyKeys("order.cancel", "mail.send");
        assertThat(queue.types().get("order.cancel")).containsExactlyInAnyOrderEntriesOf(Map.of(TaskStatus.SCHEDULED,
                2L, TaskStatus.FAILED, 1L));
        assertThat(queue.types().get("mail.send")).containsExactlyInAnyOrderEntriesOf(Map.of(TaskStatus.QUEUED, 1L,
                TaskStatus.CANCELLED, 1L));
        assertThat(queue.typesSampledPerStatus()).isEqualTo(DelayQueueEndpoint.TYPE_SAMPLE);
    }

    @Test
    void countsTheDatabaseEstimatedAreMarkedSo() {
        InMemoryTaskInspector estimating = new InMemoryTaskInspector(store) {
            @Override
            public Map<TaskStatus, Count> countByStatus(Set<TaskStatus> statuses) {
                Map<TaskStatus, Count> counts = new EnumMap<>(super.countByStatus(statuses));
                counts.put(TaskStatus.SUCCEEDED, new Count(2_500_000, true));
                return counts;
            }
        };

        QueueDescriptor queue = endpoint(estimating, null).queue();

        assertThat(queue.counts()).containsEntry(TaskStatus.SUCCEEDED, 2_500_000L);
        assertThat(queue.estimatedCounts()).containsExactly(TaskStatus.SUCCEEDED);
    }

    /** A task a moment past due is about to run; overdue means more than a second past. */
    @Test
    void overdueAreThePendingTasksMoreThanASecondPastDue() {
        long oldest = pending("t", T0 - 90_000, TaskStatus.SCHEDULED);
        long late = pending("t", T0 - 5_000, TaskStatus.QUEUED);
        pending("t", T0 - 500, TaskStatus.QUEUED);
        failed("t", "not pending");

        DelayQueueEndpoint.OverdueDescriptor overdue = endpoint.queue().overdue();

        assertThat(overdue.count()).isEqualTo(2);
        assertThat(overdue.estimated()).isFalse();
        assertThat(overdue.oldestDueAt()).isEqualTo(Instant.ofEpochMilli(T0 - 90_000));
        assertThat(overdue.oldestAge()).isEqualTo("1m30s");
        store.cancel(oldest, T0);
        store.cancel(late, T0);
        assertThat(endpoint.queue().overdue()).isEqualTo(new DelayQueueEndpoint.OverdueDescriptor(0, false, null,
                "0s"));
    }

    @Test
    void theRequestedDelaysAreAHistogramOfBucketsUpToEachBound() {
        for (long delay : new long[] { 500, 1_000, 40_000, 3_600_000, 90L * 86_400_000 }) {
            pending("t", T0 + delay, TaskStatus.SCHEDULED);
        }

        DelayQueueEndpoint.DelaysDescriptor delays = endpoint.queue().requestedDelays();

        assertThat(delays.sampled()).isEqualTo(5);
        assertThat(delays.buckets()).hasSize(ThresholdAdvisor.BOUNDS.size() + 1);
        assertThat(bucket(delays, "1s")).isEqualTo(new BucketDescriptor("1s", 2, 0.4));
        assertThat(bucket(delays, "1m")).isEqualTo(new BucketDescriptor("1m", 1, 0.6));
        assertThat(bucket(delays, "1h")).isEqualTo(new BucketDescriptor("1h", 1, 0.8));
        assertThat(bucket(delays, "+Inf")).isEqualTo(new BucketDescriptor("+Inf", 1, 1));
        assertThat(delays.buckets()).extracting(BucketDescriptor::count).containsOnly(0L, 1L, 2L);
    }

    @Test
    void inJdbcModeThereIsNoThresholdInForceButOneIsSuggested() {
        pending("t", T0 + 10_000, TaskStatus.SCHEDULED);

        DelayQueueEndpoint.ThresholdDescriptor threshold = endpoint.queue().threshold();

        assertThat(threshold.current()).isNull();
        assertThat(threshold.currentRedisTasks()).isNull();
        assertThat(threshold.currentRedisBytes()).isNull();
        assertThat(threshold.suggested()).isNotBlank();
        assertThat(threshold.reason()).isNotBlank();
    }

    @Test
    void inHybridModeTheThresholdInForceShowsWhatItPutsInRedis() {
        pending("t", T0 + 60_000, TaskStatus.QUEUED);
        pending("t", T0 + 30 * 60_000, TaskStatus.QUEUED);
        pending("t", T0 + 5 * 3_600_000, TaskStatus.SCHEDULED);

        QueueDescriptor queue = endpoint(new InMemoryTaskInspector(store), Duration.ofHours(1)).queue();

        assertThat(queue.mode()).isEqualTo("hybrid");
        assertThat(queue.threshold().current()).isEqualTo("1h");
        assertThat(queue.threshold().currentRedisTasks()).isEqualTo(2);
        assertThat(queue.threshold().currentRedisBytes()).isEqualTo(2 * ThresholdAdvisor.BYTES_PER_TASK);
    }

    // --- one task ---------------------------------------------------------------------------------------------

    @Test
    void aTaskIsShownWithEverythingButItsPayloadOrNotAtAll() {
        long id = store.insert(List.of(new NewTask("t", "k", "\"secret\"", T0 + 10, TaskStatus.SCHEDULED, 4)), T0 - 5)
            .get(0)
            .id();

        assertThat(endpoint.task(id)).isEqualTo(new TaskDescriptor(id, "t", "k", TaskStatus.SCHEDULED,
                Instant.ofEpochMilli(T0 + 10), 0, 4, null, Instant.ofEpochMilli(T0 - 5), Instant.ofEpochMilli(T0 - 5)));
        assertThat(TaskDescriptor.class.getRecordComponents()).extracting(component -> component.getName())
            .doesNotContain("payload");
        assertThat(endpoint.task(id + 1)).isNull();
    }

    // --- the repairs ------------------------------------------------------------------------------------------

    @Test
    void aRerunGivesADeadLetterAFreshSetOfAttemptsDueNow() {
        long id = failed("t", "boom");

        ActionDescriptor rerun = endpoint.act(id, "rerun");

        assertThat(rerun.done()).isTrue();
        assertThat(rerun.action()).isEqualTo("rerun");
        assertThat(rerun.message()).isEqualTo("Task " + id + " is due again now, with its attempts reset");
        assertThat(rerun.task().status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(rerun.task().attempts()).isZero();
        assertThat(rerun.task().dueAt()).isEqualTo(Instant.ofEpochMilli(T0));
        assertThat(rerun.task().lastError()).as("kept until the next attempt").isEqualTo("boom");
        assertThat(rerun.task().errors()).as("the history stays").extracting(TaskView.FailedAttempt::error)
            .containsExactly("boom");
    }

    @Test
    void aRerunOfATaskThatIsNotFailedChangesNothingAndSaysWhy() {
        long id = pending("t", T0 + 1_000, TaskStatus.SCHEDULED);

        ActionDescriptor rerun = endpoint.act(id, "rerun");

        assertThat(rerun.done()).isFalse();
        assertThat(rerun.message())
            .isEqualTo("Task " + id + " is SCHEDULED; only a FAILED or PARKED task can be re-run");
        assertThat(rerun.task().dueAt()).isEqualTo(Instant.ofEpochMilli(T0 + 1_000));
    }

    @Test
    void aRerunOfADeadLetterWhoseKeyANewTaskHoldsChangesNothingAndSaysWhy() {
        long id = failed("t", "boom", "k");
        long holder = store.insert(List.of(new NewTask("t", "k", "{}", T0 + 1_000, TaskStatus.SCHEDULED, null)), T0)
            .get(0).id();

        ActionDescriptor rerun = endpoint.act(id, "rerun");

        assertThat(holder).as("the dead letter held its key no more").isNotEqualTo(id);
        assertThat(rerun.done()).isFalse();
        assertThat(rerun.message()).startsWith("Task " + id + " cannot be re-run: another task of its type now "
                + "holds its key");
        assertThat(rerun.task().status()).isEqualTo(TaskStatus.FAILED);
        assertThat(store.find("t", "k").orElseThrow().id()).isEqualTo(holder);
    }

    @Test
    void aCancelStopsAPendingTaskOnce() {
        long id = pending("t", T0 + 1_000, TaskStatus.QUEUED);

        ActionDescriptor cancelled = endpoint.act(id, " Cancel ");
        ActionDescriptor again = endpoint.act(id, "cancel");

        assertThat(cancelled.done()).isTrue();
        assertThat(cancelled.message()).isEqualTo("Task " + id + " is cancelled");
        assertThat(cancelled.task().status()).isEqualTo(TaskStatus.CANCELLED);
        assertThat(again.done()).isFalse();
        assertThat(again.message()).isEqualTo("Task " + id
                + " is CANCELLED; only a pending (SCHEDULED or QUEUED) task can be cancelled");
    }

    @Test
    void anUnknownActionIsABadRequestAndAnUnknownTaskIsNone() {
        long id = pending("t", T0, TaskStatus.QUEUED);

        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.act(id, "delete"))
            .withMessageContaining("Unknown action 'delete'");
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.act(id, null));
        assertThat(endpoint.act(id + 1, "cancel")).isNull();
        assertThat(store.find(id).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
    }

    @Test
    void theWebExtensionAnswers404ForNoTaskAnd409ForAnActionThatDoesNotApply() {
        DelayQueueEndpointWebExtension web = new DelayQueueEndpointWebExtension(endpoint);
        long id = pending("t", T0, TaskStatus.QUEUED);

        assertThat(web.task(id).getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
        assertThat(web.task(id + 1).getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
        assertThat(web.act(id + 1, "cancel").getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
        assertThat(web.act(id, "rerun").getStatus()).isEqualTo(HttpStatus.CONFLICT.value());
        assertThat(web.act(id, "rerun").getBody().task().id()).isEqualTo(id);
        assertThat(web.act(id, "cancel").getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
    }

    // --- the tasks of a type -------------------------------------------------------------------------------

    @Test
    void aTypesUnstartedTasksComeInPagesByKeyWithTheCursorOfTheNext() {
        long c = pending("t", "acct-1/c", T0 + 3_000, TaskStatus.SCHEDULED);
        long a = pending("t", "acct-1/a", T0 + 1_000, TaskStatus.QUEUED);
        long b = pending("t", "acct-1/b", T0 + 2_000, TaskStatus.SCHEDULED);
        pending("t", "acct-2/a", T0 + 1_000, TaskStatus.SCHEDULED);
        pending("u", "acct-1/z", T0 + 1_000, TaskStatus.SCHEDULED);
        long unkeyed = pending("t", T0 + 1_000, TaskStatus.SCHEDULED);
        failed("t", "done with", "acct-1/0");

        TasksPageDescriptor first = endpoint.unstarted("t", "acct-1/", null, 2);
        TasksPageDescriptor second = endpoint.unstarted("t", "acct-1/", first.next(), 2);

        assertThat(first.tasks()).extracting(TaskDescriptor::id).containsExactly(a, b);
        assertThat(first.next()).isEqualTo(b);
        assertThat(first.type()).isEqualTo("t");
        assertThat(first.keyPrefix()).isEqualTo("acct-1/");
        assertThat(second.tasks()).extracting(TaskDescriptor::id).containsExactly(c);
        assertThat(second.next()).as("a page shorter than the limit is the last").isNull();
        assertThat(endpoint.unstarted("t", null, null, null).tasks()).extracting(TaskDescriptor::id)
            .as("without a prefix: every task of the type, those without a key first")
            .startsWith(unkeyed)
            .hasSize(5);
        assertThat(endpoint.unstarted("t", "", null, null).tasks()).hasSize(4);
    }

    @Test
    void aTypeNoTaskHasIsAnEmptyPageAndNoChange() {
        pending("t", "k", T0 + 1_000, TaskStatus.SCHEDULED);

        assertThat(endpoint.unstarted("nobody.uses.this", null, null, null))
            .isEqualTo(new TasksPageDescriptor("nobody.uses.this", null, List.of(), null));
        assertThat(endpoint.bulk("nobody.uses.this", "cancel", "", null, null, null).changed()).isZero();
    }

    @Test
    void aPageRequestItCannotServeIsABadRequestThatSaysWhatToChange() {
        long other = pending("u", "k", T0 + 1_000, TaskStatus.SCHEDULED);

        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> endpoint.unstarted("t", null, null, 0))
            .withMessage("limit must be 1 to 1000, not 0: leave it out for 100 tasks a page");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> endpoint.unstarted("t", null, null, 1001))
            .withMessageContaining("limit must be 1 to 1000");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> endpoint.unstarted("t", null, other + 1, null))
            .withMessage("after=" + (other + 1) + " is no task (it may have been purged since): pass the 'next' of "
                    + "the previous page, or leave after out to start again from the first page");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> endpoint.unstarted("t", null, other, null))
            .withMessageContaining("is a task of type 'u', not 't'");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> endpoint.unstarted(" ", null, null, null))
            .withMessage("task type must not be blank");
    }

    @Test
    void aBulkCancelStopsTheTasksUnderThePrefixOnly() {
        long a = pending("t", "acct-1/a", T0 + 1_000, TaskStatus.QUEUED);
        long b = pending("t", "acct-1/b", T0 + 90_000, TaskStatus.SCHEDULED);
        long otherKey = pending("t", "acct-2/a", T0 + 1_000, TaskStatus.SCHEDULED);
        long otherType = pending("u", "acct-1/a", T0 + 1_000, TaskStatus.SCHEDULED);
        long unkeyed = pending("t", T0 + 1_000, TaskStatus.SCHEDULED);

        BulkDescriptor cancelled = endpoint.bulk("t", " Cancel ", "acct-1/", null, null, null);
        BulkDescriptor again = endpoint.bulk("t", "cancel", "acct-1/", null, null, null);

        assertThat(cancelled).isEqualTo(new BulkDescriptor("t", "acct-1/", "cancel", 2,
                "Cancelled 2 tasks of type 't' whose key starts with 'acct-1/'"));
        assertThat(again.changed()).isZero();
        assertThat(List.of(a, b)).allSatisfy(id -> assertThat(status(id)).isEqualTo(TaskStatus.CANCELLED));
        assertThat(List.of(otherKey, otherType, unkeyed))
            .allSatisfy(id -> assertThat(status(id)).isEqualTo(TaskStatus.SCHEDULED));
    }

    @Test
    void allInsteadOfAPrefixReachesEveryTaskOfTheType() {
        pending("t", "acct-1/a", T0 + 1_000, TaskStatus.QUEUED);
        long unkeyed = pending("t", T0 + 1_000, TaskStatus.SCHEDULED);
        long otherType = pending("u", T0 + 1_000, TaskStatus.SCHEDULED);

        BulkDescriptor cancelled = endpoint.bulk("t", "cancel", null, true, null, null);

        assertThat(cancelled).isEqualTo(new BulkDescriptor("t", null, "cancel", 2, "Cancelled 2 tasks of type 't'"));
        assertThat(status(unkeyed)).isEqualTo(TaskStatus.CANCELLED);
        assertThat(status(otherType)).isEqualTo(TaskStatus.SCHEDULED);
    }

    @Test
    void aBulkRerunRunsEveryParkedTaskOfTheTypeAgainAndNoOther() {
        long first = parked("t", null);
        long second = parked("t", null);
        long keyHeld = parked("t", "order-4");
        pending("t", "order-4", T0 + 1_000, TaskStatus.SCHEDULED); // holds the key the parked one had
        long otherType = parked("u", null);
        long deadLetter = failed("t", "boom");

        BulkDescriptor rerun = endpoint.bulk("t", "rerun", null, true, null, null);

        assertThat(rerun).isEqualTo(new BulkDescriptor("t", null, "rerun", 2,
                "Re-ran 2 parked tasks of type 't'; they are due now, with their attempts reset"));
        assertThat(status(first)).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(status(second)).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(status(keyHeld)).isEqualTo(TaskStatus.PARKED);
        assertThat(status(otherType)).isEqualTo(TaskStatus.PARKED);
        assertThat(status(deadLetter)).as("a dead letter is re-run one by one").isEqualTo(TaskStatus.FAILED);
        assertBadRequest(() -> endpoint.bulk("t", "rerun", "order-", null, null, null),
                "rerun re-runs every parked task of type 't': give \"all\": true, not a keyPrefix");
    }

    @Test
    void aBulkRescheduleMovesThePendingTasksToOneDueTime() {
        long a = pending("t", "acct-1/a", T0 + 1_000, TaskStatus.QUEUED);
        long b = pending("t", "acct-1/b", T0 + 90_000, TaskStatus.SCHEDULED);
        long otherKey = pending("t", "acct-2/a", T0 + 1_000, TaskStatus.SCHEDULED);
        Instant monday = Instant.ofEpochMilli(T0 + 86_400_000);

        BulkDescriptor moved = endpoint.bulk("t", "reschedule", "acct-1/", null, monday.toString(), null);

        assertThat(moved).isEqualTo(new BulkDescriptor("t", "acct-1/", "reschedule", 2,
                "Moved 2 tasks of type 't' whose key starts with 'acct-1/' to " + monday));
        assertThat(List.of(a, b)).allSatisfy(id -> assertThat(dueAt(id)).isEqualTo(monday));
        assertThat(dueAt(otherKey)).isEqualTo(Instant.ofEpochMilli(T0 + 1_000));
        assertThat(endpoint.bulk("t", "reschedule", "acct-1/", null, "2026-12-07T10:00:00+01:00", null).changed())
            .as("an offset is understood").isEqualTo(2);
        assertThat(dueAt(a)).isEqualTo(Instant.parse("2026-12-07T09:00:00Z"));
    }

    @Test
    void aBulkShiftMovesEachDueTimeByTheDuration() {
        long a = pending("t", "acct-1/a", T0 + 1_000, TaskStatus.QUEUED);
        long b = pending("t", "acct-1/b", T0 + 90_000, TaskStatus.SCHEDULED);

        BulkDescriptor later = endpoint.bulk("t", "shift", "acct-1/", null, null, "10m");
        BulkDescriptor earlier = endpoint.bulk("t", "shift", "acct-1/", null, null, "PT-1M");

        assertThat(later.message()).isEqualTo("Shifted 2 tasks of type 't' whose key starts with 'acct-1/' by 10m");
        assertThat(earlier.message()).endsWith(" by -1m");
        assertThat(dueAt(a)).isEqualTo(Instant.ofEpochMilli(T0 + 1_000 + 540_000));
        assertThat(dueAt(b)).isEqualTo(Instant.ofEpochMilli(T0 + 90_000 + 540_000));
    }

    @Test
    void aBulkRequestItCannotServeIsABadRequestThatSaysWhatToChangeAndChangesNothing() {
        long id = pending("t", "acct-1/a", T0 + 1_000, TaskStatus.QUEUED);

        assertBadRequest(() -> endpoint.bulk("t", "delete", "acct-1/", null, null, null),
                "Unknown action 'delete': use \"cancel\", \"reschedule\" (with \"dueAt\"), \"shift\" (with \"by\") or "
                        + "\"rerun\" (the parked tasks, with \"all\": true)");
        assertBadRequest(() -> endpoint.bulk("t", null, "acct-1/", null, null, null), "Unknown action 'null'");
        assertBadRequest(() -> endpoint.bulk("t", "cancel", null, null, null, null),
                "keyPrefix is missing: give the start of the keys of the tasks to cancel (\"\" for every task with a "
                        + "key), or \"all\": true for every task of type 't'");
        assertBadRequest(() -> endpoint.bulk("t", "cancel", null, false, null, null), "keyPrefix is missing");
        assertBadRequest(() -> endpoint.bulk("t", "cancel", "acct-1/", true, null, null),
                "Give keyPrefix or \"all\": true, not both");
        assertBadRequest(() -> endpoint.bulk("t", "reschedule", "acct-1/", null, null, null),
                "reschedule needs \"dueAt\": an ISO-8601 instant such as 2026-12-07T09:00:00Z");
        assertBadRequest(() -> endpoint.bulk("t", "reschedule", "acct-1/", null, "monday", null),
                "dueAt 'monday' is no ISO-8601 instant");
        assertBadRequest(() -> endpoint.bulk("t", "reschedule", "acct-1/", null, "2026-12-07T09:00:00Z", "1h"),
                "\"by\" does not apply to reschedule: it takes \"dueAt\"");
        assertBadRequest(() -> endpoint.bulk("t", "shift", "acct-1/", null, null, " "),
                "shift needs \"by\": a duration such as 10m, -1h or PT10M");
        assertBadRequest(() -> endpoint.bulk("t", "shift", "acct-1/", null, null, "ten minutes"),
                "by 'ten minutes' is no duration");
        assertBadRequest(() -> endpoint.bulk("t", "cancel", "acct-1/", null, "2026-12-07T09:00:00Z", null),
                "\"dueAt\" does not apply to cancel: leave it out");
        assertBadRequest(() -> endpoint.bulk("t", "shift", "acct-1/", null, null, "PT876000000H"),
                "shift PT876000000H is too large");
        assertBadRequest(() -> endpoint.bulk("t", "cancel", "a\u0000b", null, null, null), "key prefix");
        assertThat(status(id)).isEqualTo(TaskStatus.QUEUED);
        assertThat(dueAt(id)).isEqualTo(Instant.ofEpochMilli(T0 + 1_000));
    }

    @Test
    void theWebExtensionServesTheTypesPathAndRefusesAnotherFirstSegment() {
        DelayQueueEndpointWebExtension web = new DelayQueueEndpointWebExtension(endpoint);
        long id = pending("t", "k", T0 + 1_000, TaskStatus.QUEUED);

        WebEndpointResponse<TasksPageDescriptor> page = web.unstarted("types", "t", null, null, null);
        assertThat(page.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
        assertThat(page.getBody().tasks()).extracting(TaskDescriptor::id).containsExactly(id);
        assertBadRequest(() -> web.unstarted("type", "t", null, null, null),
                "Unknown path /actuator/delayqueue/type/t: the tasks of a type are at "
                        + "/actuator/delayqueue/types/{type}");
        assertBadRequest(() -> web.bulk("jobs", "t", "cancel", "", null, null, null), "Unknown path");
        WebEndpointResponse<BulkDescriptor> cancelled = web.bulk("types", "t", "cancel", "", null, null, null);
        assertThat(cancelled.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
        assertThat(cancelled.getBody().changed()).isEqualTo(1);
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    private long pending(String type, long dueAt, TaskStatus status) {
        return pending(type, null, dueAt, status);
    }

    private long pending(String type, @Nullable String key, long dueAt, TaskStatus status) {
        return store.insert(List.of(new NewTask(type, key, "{}", dueAt, status, null)), T0).get(0).id();
    }

    private TaskStatus status(long id) {
        return store.find(id).orElseThrow().status();
    }

    private Instant dueAt(long id) {
        return store.find(id).orElseThrow().dueAt();
    }

    private static void assertBadRequest(ThrowingCallable call, String message) {
        assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(call)
            .withMessageStartingWith(message);
    }

    private long failed(String type, String error) {
        return failed(type, error, null);
    }

    private long failed(String type, String error, @Nullable String key) {
        long id = pending(type, key, T0 - 60_000, TaskStatus.QUEUED);
        ClaimedTask claimed = store.claimIds(List.of(id), T0, new Lease("a", T0 + 30_000, T0)).get(0);
        store.finish(List.of(new Completion.Failed(id, claimed.claim(), 3, error)), T0);
        return id;
    }

    private long parked(String type, @Nullable String key) {
        long id = pending(type, key, T0 - 60_000, TaskStatus.QUEUED);
        ClaimedTask claimed = store.claimIds(List.of(id), T0, new Lease("a", T0 + 30_000, T0)).get(0);
        store.finish(List.of(new Completion.Parked(id, claimed.claim(), 1, "payload does not bind")), T0);
        return id;
    }

    private static BucketDescriptor bucket(DelayQueueEndpoint.DelaysDescriptor delays, String upTo) {
        return delays.buckets().stream().filter(bucket -> bucket.upTo().equals(upTo)).findFirst().orElseThrow();
    }
}
