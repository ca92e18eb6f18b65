package io.github.delayqueue.runtime;

import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.SettableClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a failed run ends, by whose fault: the handler's, or the instance's that lost the lease; and what the log says
 * of it: every failed attempt, without flooding it.
 */
@ExtendWith(OutputCaptureExtension.class)
class TaskRunnerTest {

    private static final long T0 = 1_750_000_000_000L;

    /** The queue's clock of {@link #logged}, standing still until a test moves it. */
    private final SettableClock time = SettableClock.atMillis(T0);

    /** A record a handler takes, with required components. */
    record Order(Long id, String customer) {
    }

    private final TaskRunner runner;

    /** Runs on {@link #time}: at most 3 attempts, 10 s apart. */
    private final TaskRunner logged;

    /** Attempt 1 of at most 1: a failure of the handler's own is a dead letter. */
    private final ClaimedTask lastAttempt = new ClaimedTask(7, "interrupted", null, "null", 0, 1, 1, 0, 4);

    private final HandlerRegistry registry = new HandlerRegistry();

    TaskRunnerTest() {
        registry.register(new TaskHandler() {
            @Override
            public String type() {
                return "interrupted";
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
                throw new InterruptedException("sleep interrupted");
            }

            @Override
            public String description() {
                return "a handler that is interrupted";
            }
        });
        registry.register(handler("boom", null, (payload, context) -> {
            throw new IllegalStateException("boom " + context.id());
        }));
        registry.register(handler("order.typed", Order.class, (payload, context) -> {
        }));
        runner = runner(TaskEvents.NONE, new JacksonPayloadCodec(JsonMapper.builder().build()));
        logged = new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(10), 1, Duration.ofSeconds(10))),
                Tiers.databaseOnly(), new QueueClock(time), TaskEvents.NONE, "instance-a", HandlerInvoker.DIRECT,
                new InMemoryTaskStore(), null);
    }

    private interface Body {
        void run(@Nullable Object payload, TaskContext context) throws Exception;
    }

    private static TaskHandler handler(String type, @Nullable Type payloadType, Body body) {
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
                return payloadType;
            }

            @Override
            public void handle(@Nullable Object payload, TaskContext context) throws Exception {
                body.run(payload, context);
            }

            @Override
            public String description() {
                return "Handlers." + type + "(" + (payloadType == null ? "" : "Order, ") + "TaskContext)";
            }
        };
    }

    private static ClaimedTask task(long id, String type, @Nullable String key, String payload, int attempt) {
        return new ClaimedTask(id, type, key, payload, T0, attempt, null, T0, 1);
    }

    /** The captured lines at {@code level} that the queue wrote about tasks. */
    private static List<String> lines(CapturedOutput output, String level) {
        return output.getOut().lines().filter(line -> line.contains(" " + level + " ")).toList();
    }

    private TaskRunner runner(TaskEvents events, PayloadCodec codec) {
        return new TaskRunner(registry, codec,
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), new QueueClock(Clock.systemUTC()), events, "instance-a", HandlerInvoker.DIRECT,
                new InMemoryTaskStore(), null);
    }

    @Test
    void aFailureOnTheLastAttemptIsDeadLettered() {
        assertThat(runner.run(lastAttempt, () -> false)).isInstanceOfSatisfying(Completion.Failed.class,
                failed -> assertThat(failed.error()).contains("attempt 1 of 1").contains("sleep interrupted"));
    }

    @Test
    void aHandlerInterruptedBecauseTheLeaseWasLostGoesBackEvenOnItsLastAttempt() {
        long before = System.currentTimeMillis();
        assertThat(runner.run(lastAttempt, () -> true)).isInstanceOfSatisfying(Completion.Retry.class, retry -> {
            assertThat(retry.status()).isEqualTo(TaskStatus.SCHEDULED);
            assertThat(retry.dueAt()).isBetween(before, System.currentTimeMillis());
            assertThat(retry.error()).contains("instance-a could not renew its lease").contains("sleep interrupted");
            assertThat(retry.attempts()).as("the interrupted attempt is not held against the task").isZero();
            assertThat(retry.claim()).isEqualTo(4);
        });
    }

    @Test
    void aListenerThatThrowsAroundTheHandlerStillEndsTheRunInACompletion() {
        TaskEvents throwing = new TaskEvents() {
            @Override
            public void started(TaskContext task, long latenessMillis) {
                throw new IllegalStateException("listener bug");
            }
        };
        Completion completion = runner(throwing, new JacksonPayloadCodec(JsonMapper.builder().build()))
            .run(new ClaimedTask(8, "interrupted", null, "null", 0, 1, 3, 0, 1), () -> false);
        assertThat(completion).isInstanceOfSatisfying(Completion.Retry.class,
                retry -> assertThat(retry.error()).contains("outside its handler").contains("listener bug"));
    }

    @Test
    void aCodecThatThrowsSomethingElseThanABindingFailureDeadLettersTheTaskWithTheReason() {
        registry.register(new TaskHandler() {
            @Override
            public String type() {
                return "typed";
            }

            @Override
            public HandlerSettings settings() {
                return new HandlerSettings(null, null, 0);
            }

            @Override
            public @Nullable Type payloadType() {
                return String.class;
            }

            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
            }

            @Override
            public String description() {
                return "a typed handler";
            }
        });
        PayloadCodec broken = new PayloadCodec() {
            @Override
            public String encode(@Nullable Object payload) {
                return "null";
            }

            @Override
            public @Nullable Object decode(String json, Type type) {
                throw new UnsupportedOperationException("codec bug");
            }
        };
        Completion completion = runner(TaskEvents.NONE, broken)
            .run(new ClaimedTask(9, "typed", null, "\"x\"", 0, 1, 3, 0, 1), () -> false);
        assertThat(completion).isInstanceOfSatisfying(Completion.Failed.class,
                failed -> assertThat(failed.error()).contains("codec bug"));
    }

    // --- what the listeners hear ----------------------------------------------------------------------------

    /** A listener that records each failed attempt as "id FAILURE ExceptionName". */
    private static TaskEvents recording(List<String> into, boolean failOnStart) {
        return new TaskEvents() {
            @Override
            public void started(TaskContext task, long latenessMillis) {
                if (failOnStart) {
                    throw new IllegalStateException("listener bug");
                }
            }

            @Override
            public void attemptFailed(TaskContext task, Failure failure, @Nullable Throwable error) {
                into.add(task.id() + " " + failure + " " + (error == null ? "none" : error.getClass().getSimpleName()));
            }
        };
    }

    @Test
    void everyFailedAttemptIsReportedWithWhyAndWhatWasThrown() {
        List<String> reported = new CopyOnWriteArrayList<>();
        TaskRunner reporting = runner(recording(reported, false),
                new JacksonPayloadCodec(JsonMapper.builder().build()));

        reporting.run(task(21, "boom", null, "null", 1), () -> false);
        reporting.run(task(22, "boom", null, "null", 3), () -> false);
        reporting.run(task(23, "nobody.serves.this", null, "null", 1), () -> false);
        reporting.run(task(24, "order.typed", null, "{\"to\":\"ada@example.org\"}", 1), () -> false);
        reporting.run(lastAttempt, () -> true);
        runner(recording(reported, true), new JacksonPayloadCodec(JsonMapper.builder().build()))
            .run(task(25, "boom", null, "null", 1), () -> false);

        assertThat(reported).containsExactly("21 HANDLER IllegalStateException", "22 HANDLER IllegalStateException",
                "23 NO_HANDLER none", "24 BINDING PayloadBindingException", "7 LEASE_LOST InterruptedException",
                "25 INTERNAL IllegalStateException");
    }

    // --- what the log says ---------------------------------------------------------------------------------

    @Test
    void aFailedAttemptThatIsRetriedIsOneWarningWithTheTaskTheAttemptTheRetryAndTheException(CapturedOutput output) {
        Completion completion = logged.run(task(11, "boom", "order-11", "null", 1), () -> false);

        assertThat(completion).isInstanceOf(Completion.Retry.class);
        assertThat(lines(output, "WARN")).singleElement().asString()
            .contains("11", "'boom'", "'order-11'", "attempt 1 of 3")
            .contains(Instant.ofEpochMilli(T0 + 10_000).toString())
            .contains("java.lang.IllegalStateException: boom 11");
        assertThat(lines(output, "ERROR")).isEmpty();
        assertThat(output.getOut()).as("no stack trace for an attempt that is retried").doesNotContain("\tat ");
    }

    @Test
    void theLastFailedAttemptIsOneErrorSayingDeadLetteredWithTheStackTrace(CapturedOutput output) {
        Completion completion = logged.run(task(12, "boom", null, "null", 3), () -> false);

        assertThat(completion).isInstanceOf(Completion.Failed.class);
        assertThat(lines(output, "ERROR")).singleElement().asString()
            .contains("12", "'boom'", "attempt 3 of 3", "dead-lettered")
            .contains("java.lang.IllegalStateException: boom 12");
        assertThat(lines(output, "WARN")).isEmpty();
        assertThat(output.getOut()).contains("\tat ");
    }

    @Test
    void aTaskOfATypeNoHandlerServesIsAnErrorNamingTheType(CapturedOutput output) {
        Completion completion = logged.run(task(13, "nobody.serves.this", "k-13", "\"x\"", 1), () -> false);

        assertThat(completion).isInstanceOf(Completion.Failed.class);
        assertThat(lines(output, "ERROR")).singleElement().asString()
            .contains("13", "'nobody.serves.this'", "'k-13'", "dead-lettered", "No @DelayedHandler");
    }

    @Test
    void aPayloadThatDoesNotBindIsParkedWithAnErrorNamingTheHandlerAndTheReason(CapturedOutput output) {
        Completion completion = logged.run(task(14, "order.typed", null, "\"not an order\"", 1), () -> false);

        assertThat(completion).isInstanceOf(Completion.Parked.class);
        assertThat(lines(output, "ERROR")).singleElement().asString()
            .contains("14", "'order.typed'", "is parked (PARKED)", "Handlers.order.typed(Order, TaskContext)")
            .contains("Order");
    }

    @Test
    void aRecordOfAnotherTypeDoesNotBindAndIsParked(CapturedOutput output) {
        Completion completion = logged.run(task(15, "order.typed", null, "{\"to\":\"ada@example.org\"}", 1),
                () -> false);

        assertThat(completion).isInstanceOfSatisfying(Completion.Parked.class,
                parked -> assertThat(parked.error()).contains("does not fit").contains("'id'")
                    .contains("register a payload upcaster for the type"));
        assertThat(lines(output, "ERROR")).singleElement().asString().contains("15", "is parked (PARKED)");
    }

    /**
     * A type failing thousands of times a second must not flood the log: a few lines a window, then one that says
     * how many were left out.
     */
    @Test
    void aFloodOfFailuresOfOneTypeIsLoggedAFewTimesAWindowThenCounted(CapturedOutput output) {
        for (int i = 0; i < 1_000; i++) {
            logged.run(task(1_000 + i, "boom", null, "null", 1), () -> false);
        }
        List<String> first = lines(output, "WARN");
        assertThat(first).as("lines for 1,000 failed attempts at one instant").hasSizeBetween(1, 12);

        time.advance(Duration.ofMinutes(1));
        logged.run(task(5_000, "boom", null, "null", 1), () -> false);

        List<String> all = lines(output, "WARN");
        assertThat(all).hasSize(first.size() + 1);
        long attemptsLogged = first.stream().filter(line -> line.contains("attempt 1 of 3")).count();
        assertThat(all.get(all.size() - 1)).contains("5000", "not logged", String.valueOf(1_000 - attemptsLogged));
    }
}
