package io.github.delayqueue.runtime;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskStore;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the queue hands the store: due times on the queue clock, never early; keys the database would confuse,
 * refused.
 */
class DefaultDelayQueueTest {

    /** The application's clock, stopped: 2026-01-01T00:00:00.000200Z. */
    private static final Instant LOCAL = Instant.parse("2026-01-01T00:00:00.000200Z");

    private final List<NewTask> inserted = new ArrayList<>();

    private final List<Long> insertedAt = new ArrayList<>();

    private final QueueClock clock = new QueueClock(Clock.fixed(LOCAL, ZoneOffset.UTC));

    private final DefaultDelayQueue queue = new DefaultDelayQueue(store(), JdbcModeParts.indexer(),
            new JacksonPayloadCodec(JsonMapper.builder().build()), 1000, Tiers.databaseOnly(),
            clock, new WakeSignal(clock), TaskEvents.composite(List.of()));

    DefaultDelayQueueTest() {
        // The database runs 4 s ahead; the tightest reading had a 250 µs round trip.
        EngineAccess.offsetMicros(clock, 4_000_000, 4_000_250);
    }

    /**
     * One rule for what follows a write (indexing, the wake-up, the {@code scheduled} and {@code cancelled} events):
     * it waits for the caller's commit when the store says the write joined the transaction, and happens at once when
     * it did not, transaction or not.
     */
    @Test
    void whatFollowsAWriteWaitsForTheCommitOnlyWhenTheWriteJoinedTheTransaction() {
        for (boolean joins : new boolean[] { true, false }) {
            InMemoryTimeIndex index = new InMemoryTimeIndex(1);
            List<String> events = new ArrayList<>();
            TaskEvents recorded = new TaskEvents() {
                @Override
                public void scheduled(String type) {
                    events.add("scheduled " + type);
                }

                @Override
                public void cancelled(String type) {
                    events.add("cancelled " + type);
                }
            };
            DefaultDelayQueue queue = new DefaultDelayQueue(new InMemoryTaskStore() {
                @Override
                public boolean joinsCallerTransaction() {
                    return joins;
                }
            }, new Indexer(index, TaskEvents.NONE), new JacksonPayloadCodec(JsonMapper.builder().build()), 1000,
                    Tiers.hybrid(Duration.ofHours(1)), clock, new WakeSignal(clock), recorded);
            long cancelled = queue.schedule("c", null, Duration.ofHours(2)); // before; beyond the threshold
            TransactionSynchronizationManager.initSynchronization();
            TransactionSynchronizationManager.setActualTransactionActive(true);
            try {
                queue.schedule("t", null, Duration.ofSeconds(1));
                queue.cancel(cancelled);

                assertThat(index.size(0)).as("joins %s: indexed before the commit", joins).isEqualTo(joins ? 0 : 1);
                assertThat(events).as("joins %s: before the commit", joins)
                    .isEqualTo(joins ? List.of("scheduled c") : List.of("scheduled c", "scheduled t", "cancelled c"));
                TransactionSynchronizationUtils.triggerAfterCommit();
            }
            finally {
                TransactionSynchronizationManager.setActualTransactionActive(false);
                TransactionSynchronizationManager.clearSynchronization();
            }
            assertThat(events).as("joins %s: after the commit", joins)
                .containsExactlyInAnyOrder("scheduled c", "scheduled t", "cancelled c");
            assertThat(index.size(0)).as("joins %s: indexed after the commit", joins).isEqualTo(1);
        }
    }

    @Test
    void aDelayCountsFromTheHighEndOfTheClockWindow() {
        queue.schedule("t", null, Duration.ofSeconds(10));

        long localMicros = LOCAL.toEpochMilli() * 1000 + 200;
        // whatever the true offset in the window, the task falls due at least 10 s after it was scheduled
        long latestDatabaseNowMicros = localMicros + 4_000_250;
        assertThat(inserted.get(0).dueAt() * 1000).isGreaterThanOrEqualTo(latestDatabaseNowMicros + 10_000_000)
            .isLessThan(latestDatabaseNowMicros + 10_000_000 + 1000);
        assertThat(inserted.get(0).dueAt() - insertedAt.get(0)).as("due minus created is the delay")
            .isEqualTo(10_000);
    }

    @Test
    void aDueInstantIsOnTheApplicationClockAndMovesToTheQueueClock() {
        Instant at = LOCAL.plusSeconds(60);
        queue.schedule("t", null, at);
        queue.schedule(TaskRequest.of("t", null).dueAt(at).build());

        // when the application's clock shows `at`, the database clock shows at most at + 4 s + 250 µs
        long latestMicros = at.getEpochSecond() * 1_000_000 + at.getNano() / 1000 + 4_000_250;
        for (NewTask task : inserted) {
            assertThat(task.dueAt() * 1000).isGreaterThanOrEqualTo(latestMicros).isLessThan(latestMicros + 1000);
        }
        assertThat(inserted).hasSize(2);
    }

    @Test
    void aDueInstantInThePastMeansNow() {
        queue.schedule("t", null, LOCAL.minusSeconds(3600));
        assertThat(inserted.get(0).dueAt()).isEqualTo(clock.latestNow());
    }

    @Test
    void keysAndTypesEndingInASpaceAreRefusedOnEveryPath() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> queue.schedule(TaskRequest.of("t", null).key("k ").build()))
            .withMessageContaining("'k '").withMessageContaining("ends with a space")
            .withMessageContaining("same task key as 'k'");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> queue.scheduleAll(List.of(TaskRequest.of("t", null).key("k").build(),
                    TaskRequest.of("t", null).key("k  ").build())))
            .withMessageContaining("ends with a space");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.find("t", "k "))
            .withMessageContaining("ends with a space");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.cancel("t", "k "))
            .withMessageContaining("ends with a space");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("t ", null, Duration.ZERO))
            .withMessageContaining("task type 't '").withMessageContaining("ends with a space");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.find("t ", "k"))
            .withMessageContaining("task type");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.cancel("t ", "k"))
            .withMessageContaining("task type");
        assertThat(inserted).as("nothing reached the store").isEmpty();
    }

    /** A store that records inserts and fails on anything else. */
    private TaskStore store() {
        return (TaskStore) Proxy.newProxyInstance(TaskStore.class.getClassLoader(), new Class<?>[] { TaskStore.class },
                (proxy, method, args) -> {
                    if (method.getName().equals("joinsCallerTransaction")) {
                        return false;
                    }
                    if (!method.getName().equals("insert")) {
                        throw new AssertionError("unexpected store call: " + method.getName());
                    }
                    @SuppressWarnings("unchecked")
                    List<NewTask> tasks = (List<NewTask>) args[0];
                    List<InsertedTask> result = new ArrayList<>();
                    for (NewTask task : tasks) {
                        inserted.add(task);
                        insertedAt.add((Long) args[1]);
                        result.add(new InsertedTask(inserted.size(), true, task.status(), task.dueAt()));
                    }
                    return result;
                });
    }
}
