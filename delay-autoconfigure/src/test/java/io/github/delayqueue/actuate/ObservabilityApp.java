package io.github.delayqueue.actuate;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * An application for the observability tests: handlers that succeed, always fail, fail once, fail until a test
 * lets them succeed, or take a record, counting their runs per task.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableDelayQueue
public class ObservabilityApp {

    /** The payload of "obs.order", with components a payload of another type lacks. */
    public record Order(Long id, String customer) {
    }

    @Bean
    Handlers observabilityHandlers() {
        return new Handlers();
    }

    /** Handlers by behaviour, with runs counted per task id. */
    public static class Handlers {

        /** "obs.switch" fails while this holds. */
        public static volatile boolean switchFails = true;

        /** Runs per task id in this context (each context has a database of its own, ids repeat across them). */
        private final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

        private void count(TaskContext context) {
            runs.computeIfAbsent(context.id(), id -> new AtomicInteger()).incrementAndGet();
        }

        public int runsOf(long id) {
            AtomicInteger count = runs.get(id);
            return count == null ? 0 : count.get();
        }

        @DelayedHandler(type = "obs.ok")
        void ok(String payload, TaskContext context) {
            count(context);
        }

        @DelayedHandler(type = "obs.fail", maxAttempts = 2, backoff = "100ms", multiplier = "1")
        void fail(String payload, TaskContext context) {
            count(context);
            throw new IllegalStateException("boom " + payload);
        }

        @DelayedHandler(type = "obs.flaky", maxAttempts = 3, backoff = "100ms", multiplier = "1")
        void flaky(String payload, TaskContext context) {
            count(context);
            if (context.attempt() == 1) {
                throw new IllegalStateException("first attempt of " + payload);
            }
        }

        @DelayedHandler(type = "obs.order")
        void order(Order order, TaskContext context) {
            count(context);
        }

        @DelayedHandler(type = "obs.switch", maxAttempts = 1)
        void switched(String payload, TaskContext context) {
            count(context);
            if (switchFails) {
                throw new IllegalStateException("switched off: " + payload);
            }
        }
    }
}
