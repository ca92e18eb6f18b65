package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.Set;
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
}
