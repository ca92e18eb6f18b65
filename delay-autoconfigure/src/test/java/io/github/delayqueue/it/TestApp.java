package io.github.delayqueue.it;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** An application with handlers that write every start to the {@link Journal} the test registered. */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableDelayQueue
public class TestApp {

    /** A payload with a little structure, to see binding work. */
    public record Order(long id, String customer) {
    }

    @Bean
    Handlers handlers(Journal journal, ObjectProvider<DelayQueueRuntime> engine) {
        return new Handlers(journal, engine);
    }

    /** Handlers by behaviour; a test picks the type that does what it needs. */
    public static class Handlers extends JournalingHandlers {

        /** Attempts to fail before succeeding, by task id; "test.flaky" reads it. */
        public static final Map<Long, Integer> failuresWanted = new ConcurrentHashMap<>();

        /** "test.blocking" tasks wait on this latch. */
        public static volatile CountDownLatch gate = new CountDownLatch(0);

        public static final AtomicInteger blockingStarted = new AtomicInteger();

        Handlers(Journal journal, ObjectProvider<DelayQueueRuntime> engine) {
            super(journal, engine);
        }

        @DelayedHandler(type = "test.ok")
        void ok(String payload, TaskContext context) {
            record(context, payload);
        }

        @DelayedHandler(type = "test.order")
        void order(Order order, TaskContext context) {
            record(context, order);
        }

        @DelayedHandler(type = "test.fail", maxAttempts = 3, backoff = "200ms", multiplier = "2")
        void fail(String payload, TaskContext context) {
            record(context, payload);
            throw new IllegalStateException("boom " + payload);
        }

        @DelayedHandler(type = "test.flaky", maxAttempts = 5, backoff = "100ms", multiplier = "1")
        void flaky(String payload, TaskContext context) {
            record(context, payload);
            if (context.attempt() <= failuresWanted.getOrDefault(context.id(), 0)) {
                throw new IllegalStateException("flaky attempt " + context.attempt());
            }
        }

        @DelayedHandler(type = "test.blocking", concurrency = 4)
        void blocking(String payload, TaskContext context) throws InterruptedException {
            record(context, payload);
            blockingStarted.incrementAndGet();
            gate.await();
        }
    }
}
