package io.github.delayqueue.sample.order;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static io.github.delayqueue.test.DelayQueueAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order service's delayed behaviour on the queue's real task table, on the test database the application uses
 * (and Redis, as in production): what the test kit runs is claimed, run and completed there.
 */
class OrderTimeoutsIT extends OrderTimeoutScenarios {

    @Test
    void theTasksAreRowsOfTheTaskTable() {
        String key = Long.toString(create("{\"amount\": 3}").id());

        assertThat(tester.pending()).hasTask(OrderTimeouts.CANCEL_UNPAID, key);
        assertThat(rowsInTheTaskTable(OrderTimeouts.CANCEL_UNPAID, key)).isEqualTo(1);
        assertThat(tester.advance(Duration.ofMinutes(30))).ranOnce(OrderTimeouts.CANCEL_UNPAID, key).succeeded();
        assertThat(jdbc.sql("SELECT status FROM delay_task WHERE task_type = ? AND task_key = ?")
            .params(OrderTimeouts.CANCEL_UNPAID, key).query(String.class).single()).isEqualTo("SUCCEEDED");
    }
}
