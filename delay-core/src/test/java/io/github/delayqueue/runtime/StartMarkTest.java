package io.github.delayqueue.runtime;

import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When a task's attempt counts. Normally the result writer batches the start marks a few milliseconds after the
 * handlers start; a task an earlier claim of which never recorded its start (it was handed back, or its instance died
 * before the mark was written: a task that kills its instance at once looks like that) has its start written before
 * its handler runs, so it cannot crash instance after instance uncounted. The result writer does not run here, so a
 * batched mark is never written.
 */
class StartMarkTest {

    private final QueueClock clock = new QueueClock(Clock.systemUTC());

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final ClaimTerms terms = new ClaimTerms("test", Duration.ofSeconds(30));

    /** The task's attempts in the database as its handler started, by id. */
    private final Map<Long, Integer> attemptsAtStart = new ConcurrentHashMap<>();

    private WorkerPool pool;

    @AfterEach
    void stop() throws InterruptedException {
        pool.releaseUnstarted();
        pool.awaitRunning(5_000);
        pool.stopGuard();
    }

    @Test
    void aTaskWhoseEarlierClaimRecordedNoStartHasItsStartWrittenBeforeItsHandlerRuns() {
        pool = pool();
        long now = clock.now();
        long fresh = insert(now);
        long handedBack = insert(now);
        ClaimedTask first = claim(handedBack, now);
        store.release(Map.of(first.claimId(), TaskStatus.QUEUED), now); // never started: uncounted
        ClaimedTask again = claim(handedBack, now);
        assertThat(again.claim()).isEqualTo(2);
        assertThat(again.attempt()).isEqualTo(1);

        pool.submit(List.of(claim(fresh, now), again), now + 30_000);

        await().atMost(5, TimeUnit.SECONDS).until(() -> attemptsAtStart.size() == 2);
        assertThat(attemptsAtStart.get(handedBack)).as("counted before its handler ran").isEqualTo(1);
        assertThat(attemptsAtStart.get(fresh)).as("a first claim's start is batched: no extra round trip")
            .isZero();
    }

    private long insert(long now) {
        return store.insert(List.of(new NewTask("t", null, "null", now, TaskStatus.QUEUED, null)), now).get(0).id();
    }

    private ClaimedTask claim(long id, long now) {
        return store.claimIds(List.of(id), now, terms.at(now)).get(0);
    }

    private WorkerPool pool() {
        WakeSignal wake = new WakeSignal(clock);
        ResultWriter writer = new ResultWriter(store, clock, JdbcModeParts.indexWrites(), wake,
                Tiers.databaseOnly(), TaskEvents.NONE); // never started
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(new TaskHandler() {
            @Override
            public String type() {
                return "t";
            }

            @Override
            public HandlerSettings settings() {
                return new HandlerSettings(null, null, 0);
            }

            @Override
            public @Nullable Type payloadType() {
                return null;
            }

            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
                attemptsAtStart.put(context.id(), store.find(context.id()).orElseThrow().attempts());
            }

            @Override
            public String description() {
                return "t";
            }
        });
        TaskRunner runner = new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), clock, TaskEvents.NONE, "test", HandlerInvoker.DIRECT,
                new InMemoryTaskStore(), null);
        WorkerPool workers = new WorkerPool(2, 0, new HeldTasks(clock, Duration.ofSeconds(30)), registry, runner,
                writer, clock, TestScheduler.SHARED, TestScheduler.handlerThreads(), null);
        workers.start();
        return workers;
    }
}
