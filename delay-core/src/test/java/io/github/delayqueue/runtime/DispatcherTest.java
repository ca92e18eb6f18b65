package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.store.UnsupportedTaskStore;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The consumer loop survives what it does not expect, without turning into a hot loop. */
class DispatcherTest {

    @Test
    void aLoopThatKeepsFailingWithAnErrorBacksOff() throws Exception {
        QueueClock clock = new QueueClock(Clock.systemUTC());
        WakeSignal wake = new WakeSignal(clock);
        UnsupportedTaskStore store = new UnsupportedTaskStore() {
        };
        ResultWriter resultWriter = new ResultWriter(store, clock, JdbcModeParts.indexWrites(), wake,
                Tiers.databaseOnly(), TaskEvents.NONE);
        HandlerRegistry registry = new HandlerRegistry();
        TaskRunner runner = new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), clock, TaskEvents.NONE, "test", HandlerInvoker.DIRECT,
                new InMemoryTaskStore(), null);
        HeldTasks held = new HeldTasks(clock, Duration.ofSeconds(30));
        WorkerPool pool = new WorkerPool(2, 0, held, registry, runner, resultWriter, clock, TestScheduler.SHARED,
                TestScheduler.handlerThreads(), null);
        AtomicInteger fetches = new AtomicInteger();
        TaskSource failing = (now, limit) -> {
            fetches.incrementAndGet();
            throw new StackOverflowError("a bug below the dispatcher");
        };
        Dispatcher dispatcher = new Dispatcher(failing, pool, held, wake, clock, 100, store,
                new ClaimTerms("test", Duration.ofSeconds(30)), tasks -> {
                }, new ClaimableTypes(registry, pool.lanes(),
                        new PausedTypes(new InMemoryTaskStore(), Set.of())), tasks -> {
                }, TaskEvents.NONE, Duration.ofSeconds(1));
        dispatcher.start(TestScheduler.SHARED);
        Thread.sleep(2_000);
        dispatcher.stop();

        assertThat(fetches.get()).as("tries in two seconds").isBetween(1, 20);
        pool.releaseUnstarted();
    }

    /**
     * A claim asks for no more than the claimable types have room for: with one type of {@code concurrency = 1}, a
     * claim of a whole batch of its backlog would hand back all but one or two tasks, at every task of it that ends.
     */
    @Test
    void aClaimAsksForNoMoreThanTheClaimableTypesHaveRoomFor() throws Exception {
        QueueClock clock = new QueueClock(Clock.systemUTC());
        WakeSignal wake = new WakeSignal(clock);
        InMemoryTaskStore store = new InMemoryTaskStore();
        ResultWriter resultWriter = new ResultWriter(store, clock, JdbcModeParts.indexWrites(), wake,
                Tiers.databaseOnly(), TaskEvents.NONE);
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(Handlers.handler("one.at.a.time", 1));
        TaskRunner runner = new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), clock, TaskEvents.NONE, "test", HandlerInvoker.DIRECT, store, null);
        HeldTasks held = new HeldTasks(clock, Duration.ofSeconds(30));
        WorkerPool pool = new WorkerPool(8, 0, held, registry, runner, resultWriter, clock, TestScheduler.SHARED,
                TestScheduler.handlerThreads(), null);
        List<Integer> limits = new CopyOnWriteArrayList<>();
        TaskSource source = (now, limit) -> {
            limits.add(limit);
            return new FetchResult(List.of(), now + 50);
        };
        Dispatcher dispatcher = new Dispatcher(source, pool, held, wake, clock, 100, store,
                new ClaimTerms("test", Duration.ofSeconds(30)), tasks -> {
                }, new ClaimableTypes(registry, pool.lanes(), new PausedTypes(store, Set.of())), tasks -> {
                }, TaskEvents.NONE, Duration.ofSeconds(1));
        dispatcher.start(TestScheduler.SHARED);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> !limits.isEmpty());
        }
        finally {
            dispatcher.stop();
        }
        assertThat(limits).as("claim sizes asked for, with 8 free threads and one type of concurrency 1")
            .allSatisfy(limit -> assertThat(limit).isEqualTo(2));
    }
}
