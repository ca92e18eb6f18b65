package io.github.delayqueue.it;

import java.time.Duration;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The key column's collation pads with spaces, so the database takes {@code "k "} for {@code "k"}. The queue refuses
 * such keys on every path, instead of finding, cancelling or colliding with the other key's task.
 */
class TrailingSpaceKeysIT {

    private final Instances instances = new Instances(new Journal(), "delay.mode=jdbc");

    @AfterEach
    void close() {
        instances.close();
    }

    @Test
    void aKeyEndingInASpaceIsRefusedRatherThanTakenForTheKeyWithout() {
        ConfigurableApplicationContext context = instances.start();
        DelayQueue queue = context.getBean(DelayQueue.class);
        long id = queue.schedule(TaskRequest.of("test.ok", "p").key("k").delay(Duration.ofHours(1)).build());
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_key = 'k '", Integer.class))
            .as("what the database makes of 'k '").isEqualTo(1);

        assertThatIllegalArgumentException().isThrownBy(() -> queue.find("test.ok", "k "))
            .withMessageContaining("ends with a space");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.cancel("test.ok", "k "))
            .withMessageContaining("ends with a space");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> queue.schedule(TaskRequest.of("test.ok", "p").key("k ").build()))
            .withMessageContaining("ends with a space");
        assertThatIllegalArgumentException().isThrownBy(() -> queue.schedule("test.ok ", "p", Duration.ZERO))
            .withMessageContaining("task type 'test.ok '");

        assertThat(queue.find(id).orElseThrow().status()).as("the task of 'k' is untouched")
            .isEqualTo(TaskStatus.SCHEDULED);
        assertThat(queue.find("test.ok", "k").orElseThrow().id()).isEqualTo(id);
    }
}
