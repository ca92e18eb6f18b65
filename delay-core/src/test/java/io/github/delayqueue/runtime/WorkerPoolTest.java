package io.github.delayqueue.runtime;

import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
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
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.UnsupportedTaskStore;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The pool against a store that only records what it is told: which tasks start, end, and go back. */
class WorkerPoolTest {

    private final Set<Long> started = ConcurrentHashMap.newKeySet();

    private final Set<Long> handedBack = ConcurrentHashMap.newKeySet();

    private final CountDownLatch slowGate = new CountDownLatch(1);

    private final UnsupportedTaskStore store = new UnsupportedTaskStore() {
        @Override
        public int markStarted(Collection<ClaimId> claims, long now) {
            return claims.size();
        }

        @Override
        public void finish(List<Completion> completions, long now) {
        }

        @Override
        public void release(Map<ClaimId, TaskStatus> statusByClaim, long now) {
            statusByClaim.keySet().forEach(claim -> handedBack.add(claim.id()));
        }
    };

    private WorkerPool pool;

    private ResultWriter resultWriter;

    private WorkerPool pool(int threads, int prefetch) {
        QueueClock clock = new QueueClock(Clock.systemUTC());
        WakeSignal wake = new WakeSignal(clock);
        resultWriter = new ResultWriter(store, clock, JdbcModeParts.indexWrites(), wake,
                Tiers.databaseOnly(), TaskEvents.NONE);
        resultWriter.start(TestScheduler.SHARED);
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(handler("slow", () -> slowGate.await(30, TimeUnit.SECONDS)));
        registry.register(handler("fast", () -> {
        }));
        TaskRunner runner = new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), clock, TaskEvents.NONE, "test", HandlerInvoker.DIRECT,
                new InMemoryTaskStore(), null);
        pool = new WorkerPool(threads, prefetch, new HeldTasks(clock, Duration.ofSeconds(30)), registry, runner,
                resultWriter, clock, TestScheduler.SHARED, TestScheduler.handlerThreads(), null);
        pool.start();
        return pool;
    }

    @AfterEach
    void stop() throws InterruptedException {
        slowGate.countDown();
        if (pool != null) {
            pool.releaseUnstarted();
            pool.awaitRunning(5_000);
        }
        if (resultWriter != null) {
            resultWriter.stop(1_000);
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private TaskHandler handler(String type, Body body) {
        return new TaskHandler() {
            @Override
            public String type() {
                return type;
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
            public void handle(@Nullable Object payload, TaskContext context) throws Exception {
                started.add(context.id());
                body.run();
            }

            @Override
            public String description() {
                return type;
            }
        };
    }

    private static ClaimedTask task(long id, String type) {
        return new ClaimedTask(id, type, null, "null", 0, 1, null, 0, 1);
    }

    /**
     * Both threads are held by handlers that run far longer than the quick ones before them: the tasks claimed
     * ahead and waiting for a thread go back at once, for instances with free threads, and start nowhere here.
     */
    @Test
    void tasksWaitingBehindLongHandlersOnEveryThreadGoBackAtOnce() {
        WorkerPool pool = pool(2, 16);
        List<ClaimedTask> quick = new ArrayList<>();
        for (long id = 100; id < 120; id++) {
            quick.add(task(id, "fast"));
        }
        pool.submit(quick, Long.MAX_VALUE);
        await().atMost(5, TimeUnit.SECONDS).until(() -> started.size() == 20); // the usual handler is quick

        List<ClaimedTask> waiting = new ArrayList<>();
        waiting.add(task(1, "slow"));
        waiting.add(task(2, "slow"));
        for (long id = 3; id < 9; id++) {
            waiting.add(task(id, "fast"));
        }
        pool.submit(waiting, Long.MAX_VALUE);

        await().atMost(2, TimeUnit.SECONDS).until(() -> handedBack.size() == 6);
        assertThat(handedBack).containsExactlyInAnyOrder(3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(started).doesNotContain(3L, 4L, 5L, 6L, 7L, 8L).contains(1L, 2L);
        assertThat(pool.capacity()).as("no prefetch while every thread is stuck").isEqualTo(2);
    }

    @Test
    void oneFreeThreadKeepsTheWaitingTasks() throws Exception {
        WorkerPool pool = pool(2, 16);
        List<ClaimedTask> tasks = new ArrayList<>();
        tasks.add(task(1, "slow"));
        for (long id = 2; id < 8; id++) {
            tasks.add(task(id, "fast"));
        }
        pool.submit(tasks, Long.MAX_VALUE);
        await().atMost(5, TimeUnit.SECONDS).until(() -> started.size() == 7);
        Thread.sleep(200);
        assertThat(handedBack).isEmpty();
    }
}
