package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.UnsupportedTaskStore;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The consumer loop survives what it does not expect, without turning into a hot loop. */
class DispatcherTest {

    private static final ClaimTerms TERMS = new ClaimTerms("test", Duration.ofSeconds(30));

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
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(Handlers.handler("one.at.a.time", 1));
        List<Integer> limits = new CopyOnWriteArrayList<>();
        TaskSource source = (now, limit) -> {
            limits.add(limit);
            return new FetchResult(List.of(), now + 50);
        };

        runRounds(new InMemoryTaskStore(), registry, 8, source, () -> !limits.isEmpty());

        assertThat(limits).as("claim sizes asked for, with 8 free threads and one type of concurrency 1")
            .allSatisfy(limit -> assertThat(limit).isEqualTo(2));
    }

    /**
     * A round whose claim did not fill the free slots took all that was due: the next one comes at the source's next
     * time, not at once. Going round at once, a steady stream is claimed a few tasks at a time, a commit for each few.
     */
    @Test
    void aRoundThatClaimedFewerThanItsFreeSlotsWaitsForTheSourcesNextTime() throws Exception {
        InMemoryTaskStore store = new InMemoryTaskStore();
        dueNow(store, 10);
        List<Long> looks = new CopyOnWriteArrayList<>();
        TaskSource oneAtATime = (now, limit) -> {
            looks.add(now);
            return new FetchResult(store.claimDue(TaskStatus.QUEUED, now, 1, TERMS.at(now)), now + 300);
        };

        runRounds(store, Handlers.registry("t"), 4, oneAtATime, () -> looks.size() >= 3);

        assertThat(looks.get(1) - looks.get(0)).as("ms from the first look to the next; one task of 4 free slots")
            .isGreaterThanOrEqualTo(300);
        assertThat(looks.get(2) - looks.get(1)).isGreaterThanOrEqualTo(300);
    }

    /** A claim that filled the free slots may have left due tasks behind: the next round comes at once. */
    @Test
    void aRoundThatFilledItsFreeSlotsGoesAgainAtOnce() throws Exception {
        InMemoryTaskStore store = new InMemoryTaskStore();
        dueNow(store, 10);
        List<Long> looks = new CopyOnWriteArrayList<>();
        AtomicInteger claimed = new AtomicInteger();
        TaskSource asManyAsAsked = (now, limit) -> {
            looks.add(now);
            List<ClaimedTask> tasks = store.claimDue(TaskStatus.QUEUED, now, limit, TERMS.at(now));
            claimed.addAndGet(tasks.size());
            return new FetchResult(tasks, now + 60_000);
        };

        runRounds(store, Handlers.registry("t"), 4, asManyAsAsked, () -> claimed.get() >= 10);

        assertThat(looks).as("looks until all 10 were claimed, 4 at a time: not a minute apart").hasSizeGreaterThan(2);
    }

    private static void dueNow(InMemoryTaskStore store, int count) {
        long now = System.currentTimeMillis();
        for (int i = 0; i < count; i++) {
            store.insert(List.of(new NewTask("t", null, "{}", now - 1, TaskStatus.QUEUED, null)), now);
        }
    }

    /** Runs a dispatcher with {@code workers} slots and no prefetch, for the handlers of {@code registry}. */
    private static void runRounds(InMemoryTaskStore store, HandlerRegistry registry, int workers, TaskSource source,
            Callable<Boolean> done) throws Exception {
        QueueClock clock = new QueueClock(Clock.systemUTC());
        WakeSignal wake = new WakeSignal(clock);
        ResultWriter resultWriter = new ResultWriter(store, clock, JdbcModeParts.indexWrites(), wake,
                Tiers.databaseOnly(), TaskEvents.NONE);
        TaskRunner runner = new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), clock, TaskEvents.NONE, "test", HandlerInvoker.DIRECT, store, null);
        HeldTasks held = new HeldTasks(clock, Duration.ofSeconds(30));
        WorkerPool pool = new WorkerPool(workers, 0, held, registry, runner, resultWriter, clock,
                TestScheduler.SHARED, TestScheduler.handlerThreads(), null);
        Dispatcher dispatcher = new Dispatcher(source, pool, held, wake, clock, 100, store, TERMS, tasks -> {
        }, new ClaimableTypes(registry, pool.lanes(), new PausedTypes(store, Set.of())), tasks -> {
        }, TaskEvents.NONE, Duration.ofSeconds(1));
        dispatcher.start(TestScheduler.SHARED);
        try {
            await().atMost(Duration.ofSeconds(30)).until(done);
        }
        finally {
            dispatcher.stop();
            pool.releaseUnstarted();
        }
    }
}
