package io.github.delayqueue.engine;

import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;

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
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** How a failed run ends, by whose fault: the handler's, or the instance's that lost the lease. */
class TaskRunnerTest {

    private final TaskRunner runner;

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
        runner = runner(TaskEvents.NONE, new JacksonPayloadCodec(JsonMapper.builder().build()));
    }

    private TaskRunner runner(TaskEvents events, PayloadCodec codec) {
        return new TaskRunner(registry, codec,
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), new QueueClock(Clock.systemUTC()), events, "instance-a", HandlerInvoker.DIRECT);
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
}
