package io.github.delayqueue.actuate;

import java.lang.reflect.Type;
import java.time.Instant;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.TaskHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ObservedHandlerInvokerTest {

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    private final ObservedHandlerInvoker invoker = new ObservedHandlerInvoker(registry, null);

    private final TaskContext context = new TaskContext(7, "order.cancel", "o-1", 2, Instant.EPOCH, Instant.EPOCH, 3);

    private static TaskHandler handler(@Nullable RuntimeException failure) {
        return new TaskHandler() {
            @Override
            public String type() {
                return "order.cancel";
            }

            @Override
            public HandlerSettings settings() {
                throw new UnsupportedOperationException();
            }

            @Override
            public @Nullable Type payloadType() {
                return null;
            }

            @Override
            public void handle(@Nullable Object payload, TaskContext context) {
                if (failure != null) {
                    throw failure;
                }
            }

            @Override
            public String description() {
                return "test handler";
            }
        };
    }

    @Test
    void aRunIsAnObservationNamedAfterTheTask() throws Exception {
        invoker.invoke(handler(null), null, context);

        assertThat(registry).hasSingleObservationThat()
            .hasNameEqualTo("delay.task.execution")
            .hasContextualNameEqualTo("delay order.cancel")
            .hasLowCardinalityKeyValue("type", "order.cancel")
            .hasHighCardinalityKeyValue("delay.task.id", "7")
            .hasHighCardinalityKeyValue("delay.task.attempt", "2")
            .doesNotHaveError()
            .hasBeenStopped();
    }

    @Test
    void aFailureIsRecordedAndPassedOnUnchanged() {
        IllegalStateException boom = new IllegalStateException("boom");

        assertThatThrownBy(() -> invoker.invoke(handler(boom), null, context)).isSameAs(boom);
        assertThat(registry).hasSingleObservationThat().hasError(boom).hasBeenStopped();
    }
}
