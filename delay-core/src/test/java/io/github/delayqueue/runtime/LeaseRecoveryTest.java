package io.github.delayqueue.runtime;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import io.github.delayqueue.test.SettableClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LeaseRecovery} on an in-memory store, with the clock moved past the leases: the guarantee that an attempt
 * counts only if its handler started. A claimed task that never started goes back uncounted, however few attempts
 * it has; one that started counts, and is dead-lettered when that was its last.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseRecoveryTest {

    private static final long T0 = 1_750_000_000_000L;

    private static final long LEASE_END = T0 + 30_000;

    private final SettableClock applicationClock = SettableClock.atMillis(T0);

    private final QueueClock clock = new QueueClock(applicationClock);

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final InMemoryTimeIndex index = new InMemoryTimeIndex(1);

    private final HandlerRegistry registry = new HandlerRegistry();

    private final AtomicInteger recovered = new AtomicInteger();

    private final LeaseRecovery recovery = new LeaseRecovery(store, registry,
            new RetryPolicy(3, new Backoff(Duration.ofSeconds(10), 2, Duration.ofHours(1))),
            Tiers.hybrid(Duration.ofHours(1)), clock,
            new IndexWrites(new Indexer(index, TaskEvents.composite(List.of())), TestScheduler.SHARED),
            new WakeSignal(clock), TaskEvents.composite(List.of(new TaskEvents() {
                @Override
                public void recovered(RecoveryReason reason, int count) {
                    assertThat(reason).isEqualTo(RecoveryReason.LEASE);
                    recovered.addAndGet(count);
                }
            })));

    @Test
    void aClaimThatNeverStartedGoesBackUncountedEvenWithOneAttemptAllowed() {
        ClaimedTask claimed = claim(1, T0 - 5_000, 1).get(0);
        applicationClock.setMillis(LEASE_END + 1);

        recovery.run();

        TaskView task = view(claimed);
        assertThat(task.status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(task.attempts()).isZero();
        assertThat(task.dueAt().toEpochMilli()).as("still due when it was: it runs at once").isEqualTo(T0 - 5_000);
        assertThat(task.lastError()).contains("Claimed by me").contains("the attempt was not made");
        // indexed on the scheduler, after the recovery's commit
        await().atMost(Duration.ofSeconds(5)).until(() -> index.size(0) == 1);
        assertThat(index.pop(0, T0, 10).ids()).as("back in the index").containsExactly(claimed.id());
        assertThat(recovered).hasValue(1);
    }

    @Test
    void aStartedAttemptCountsAndTheTaskRunsAgainWhileAttemptsAreLeft() {
        ClaimedTask claimed = claim(1, T0, null).get(0);
        store.markStarted(List.of(claimed.claimId()), T0 + 1);
        applicationClock.setMillis(LEASE_END + 1);

        recovery.run();

        TaskView task = view(claimed);
        assertThat(task.status()).isEqualTo(TaskStatus.QUEUED);
        assertThat(task.attempts()).isEqualTo(1);
        assertThat(task.lastError()).isEqualTo("The lease of me expired during attempt 1 of 3 (the instance died or "
                + "stalled); running it again");
    }

    /** A task that kills its instance must not kill every instance in turn. */
    @Test
    void aStartedLastAttemptIsDeadLettered() {
        registry.register(handler("t", new HandlerSettings(2, null, 0)));
        List<ClaimedTask> claimed = claim(2, T0, null);
        store.markStarted(claimed.stream().map(ClaimedTask::claimId).toList(), T0 + 1);
        store.finish(List.of(new Completion.Retry(claimed.get(0).id(),
                claimed.get(0).claim(), TaskStatus.QUEUED, T0, 1, "first attempt failed")), T0 + 2);
        ClaimedTask second = store.claimIds(List.of(claimed.get(0).id()), T0, new Lease("me", LEASE_END, T0)).get(0);
        store.markStarted(List.of(second.claimId()), T0 + 3);
        applicationClock.setMillis(LEASE_END + 1);

        recovery.run();

        assertThat(view(second).status()).as("its second of the handler's two").isEqualTo(TaskStatus.FAILED);
        assertThat(view(second).attempts()).isEqualTo(2);
        assertThat(view(second).lastError()).endsWith("no attempts are left");
        assertThat(view(claimed.get(1)).status()).as("its first of two").isEqualTo(TaskStatus.QUEUED);
    }

    /** A dead letter of recovery is a failed attempt like any other: it must not be only a last_error. */
    @Test
    void aStartedLastAttemptThatIsDeadLetteredIsLoggedAtError(CapturedOutput output) {
        List<ClaimedTask> claimed = claim(2, T0, 1);
        store.markStarted(List.of(claimed.get(0).claimId()), T0 + 1);
        applicationClock.setMillis(LEASE_END + 1);

        recovery.run();

        assertThat(view(claimed.get(0)).status()).isEqualTo(TaskStatus.FAILED);
        assertThat(output.getOut().lines().filter(line -> line.contains(" ERROR "))).singleElement().asString()
            .contains("Task " + claimed.get(0).id(), "'t'", "dead-lettered", "attempt 1 of 1");
        assertThat(output.getOut()).as("the task that goes back is no dead letter")
            .doesNotContain("Task " + claimed.get(1).id());
    }

    @Test
    void aLeaseIsTakenBackOnlyOnceItHasEnded() {
        ClaimedTask claimed = claim(1, T0, null).get(0);
        applicationClock.setMillis(LEASE_END);

        recovery.run();

        assertThat(view(claimed).status()).isEqualTo(TaskStatus.RUNNING);
        assertThat(recovered).hasValue(0);
    }

    /** A task due later than the threshold goes back to the database tier, not into the index. */
    @Test
    void aTaskGoesBackToTheTierItsDueTimeBelongsTo() {
        ClaimedTask far = claim(1, T0 + 2 * 3_600_000, null).get(0);
        applicationClock.setMillis(LEASE_END + 1);

        recovery.run();

        assertThat(view(far).status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(index.size(0)).isZero();
    }

    @Test
    void oneRunTakesBackEveryExpiredLeaseBatchAfterBatch() {
        List<ClaimedTask> claimed = claim(1_200, T0, null);
        applicationClock.setMillis(LEASE_END + 1);

        recovery.run();

        assertThat(claimed).allSatisfy(task -> assertThat(view(task).status()).isEqualTo(TaskStatus.QUEUED));
        assertThat(recovered).hasValue(1_200);
    }

    private List<ClaimedTask> claim(int count, long dueAt, @Nullable Integer maxAttempts) {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(new NewTask("t", null, "{}", dueAt, TaskStatus.QUEUED, maxAttempts));
        }
        List<Long> ids = store.insert(tasks, T0).stream().map(InsertedTask::id).toList();
        return store.claimIds(ids, dueAt, new Lease("me", LEASE_END, T0));
    }

    private TaskView view(ClaimedTask task) {
        return store.find(task.id()).orElseThrow();
    }

    private static TaskHandler handler(String type, HandlerSettings settings) {
        return new TaskHandler() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public HandlerSettings settings() {
                return settings;
            }

            @Override
            public @Nullable Type payloadType() {
                return null;
            }

            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
            }

            @Override
            public String description() {
                return type + " handler";
            }
        };
    }
}
