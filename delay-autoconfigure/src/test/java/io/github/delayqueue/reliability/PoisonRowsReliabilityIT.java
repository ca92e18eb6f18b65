package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 7: rows edited by hand into nonsense. Each is reported and set aside (or, where it can be, run), and the
 * poller goes on with everything else instead of failing on the same row in a loop.
 */
@Tag("reliability")
class PoisonRowsReliabilityIT {

    @Test
    void nonsenseRowsAreSetAsideAndEverythingElseRuns() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.mode=jdbc",
                "delay.worker.recovery-interval=500ms")) {
            DelayQueue queue = instances.start("delay.worker.enabled=false").getBean(DelayQueue.class);
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            long unknownStatus = queue.schedule("rel.any", "a", Duration.ofHours(1));
            long badJson = queue.schedule("rel.typed", "b", Duration.ofHours(1));
            long noLease = queue.schedule("rel.any", "c", Duration.ofHours(1));
            long negativeAttempts = queue.schedule("rel.any", "d", Duration.ofHours(1));
            long emptyType = queue.schedule("rel.any", "e", Duration.ofHours(1));

            jdbc.update("UPDATE delay_task SET status = 'BOGUS', due_at = 0 WHERE id = ?", unknownStatus);
            jdbc.update("UPDATE delay_task SET payload = '{not json', due_at = 0 WHERE id = ?", badJson);
            jdbc.update("UPDATE delay_task SET status = 'RUNNING', owner = 'ghost', lease_until = NULL, due_at = 0 "
                    + "WHERE id = ?", noLease);
            jdbc.update("UPDATE delay_task SET attempts = -5, max_attempts = -1, due_at = 0 WHERE id = ?",
                    negativeAttempts);
            jdbc.update("UPDATE delay_task SET task_type = '', due_at = 0 WHERE id = ?", emptyType);
            // the schema refuses a missing due time outright
            assertThatThrownBy(() -> jdbc.update("UPDATE delay_task SET due_at = NULL WHERE id = ?", badJson))
                .hasMessageContaining("due_at");

            instances.start(); // a consumer meets the rows
            List<Long> healthy = List.of(queue.schedule("rel.any", "h1", Duration.ZERO),
                    queue.schedule("rel.any", "h2", Duration.ofMillis(500)));

            DelayQueue consumer = instances.started().get(1).getBean(DelayQueue.class);
            TaskView unbound = awaitDone(consumer, badJson);
            assertThat(unbound.status()).as("parked, with the reason, until a release reads it")
                .isEqualTo(TaskStatus.PARKED);
            assertThat(unbound.lastError()).contains("Payload of task " + badJson);
            TaskView recovered = awaitDone(consumer, noLease);
            assertThat(recovered.status()).as("a RUNNING row without a lease is taken back")
                .isEqualTo(TaskStatus.SUCCEEDED);
            assertThat(awaitDone(consumer, negativeAttempts).status()).isEqualTo(TaskStatus.SUCCEEDED);
            for (long id : healthy) {
                assertThat(awaitDone(consumer, id).status()).isEqualTo(TaskStatus.SUCCEEDED);
            }
            // no handler serves the empty type: the row waits, never claimed, for one that does
            assertThat(jdbc.queryForObject("SELECT status FROM delay_task WHERE id = ?", String.class, emptyType))
                .isIn("SCHEDULED", "QUEUED");
            assertThat(journal.startsOf(emptyType)).isEmpty();
            // the unknown status is never touched, and reading it says what is wrong
            assertThat(jdbc.queryForObject("SELECT status FROM delay_task WHERE id = ?", String.class, unknownStatus))
                .isEqualTo("BOGUS");
            assertThatThrownBy(() -> consumer.find(unknownStatus)).hasMessageContaining("'BOGUS'")
                .hasMessageContaining("edited by hand");
            assertThat(journal.startsOf(unknownStatus)).isEmpty();
        }
    }

    private static TaskView awaitDone(DelayQueue queue, long id) {
        await().atMost(20, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS).until(() -> {
            TaskStatus status = queue.find(id).orElseThrow().status();
            return status == TaskStatus.SUCCEEDED || status == TaskStatus.FAILED || status == TaskStatus.PARKED;
        });
        return queue.find(id).orElseThrow();
    }
}
