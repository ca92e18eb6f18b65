package io.github.delayqueue.runtime;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.test.TaskEventsContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * {@link TaskEventsContract} on {@link TaskEvents#composite}, which the engine calls whatever its listeners: it adds
 * nothing that breaks the rules, and keeps a listener that throws from the rest and from the engine.
 */
class CompositeTaskEventsTest extends TaskEventsContract {

    @Override
    protected TaskEvents createEvents() {
        return TaskEvents.composite(List.of(new TaskEvents() {
        }, new TaskEvents() {
        }));
    }

    @Test
    void aListenerThatThrowsIsSkippedAndTheNextStillHearsTheEvent() {
        List<String> heard = new ArrayList<>();
        TaskEvents throwing = new TaskEvents() {
            @Override
            public void started(TaskContext task, long latenessMillis) {
                throw new IllegalStateException("a bug in a meter");
            }
        };
        TaskEvents next = new TaskEvents() {
            @Override
            public void started(TaskContext task, long latenessMillis) {
                heard.add("started " + task.id());
            }
        };
        TaskEvents composite = TaskEvents.composite(List.of(throwing, next));
        TaskContext task = new TaskContext(5, "order.cancel", null, 1, Instant.EPOCH, Instant.EPOCH, 1);

        assertThatCode(() -> composite.started(task, 0)).doesNotThrowAnyException();
        assertThat(heard).containsExactly("started 5");
    }
}
