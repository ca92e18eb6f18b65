package io.github.delayqueue.sample.order;

import java.time.Duration;

import io.github.delayqueue.test.AutoConfigureDelayQueueTester;
import org.junit.jupiter.api.Test;

import static io.github.delayqueue.test.DelayQueueAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same delayed behaviour with the queue's tasks in memory ({@code delay.test.store=in-memory}): the orders stay
 * in the test database, the tasks (and their index) touch neither it nor Redis.
 */
@AutoConfigureDelayQueueTester(store = AutoConfigureDelayQueueTester.Store.IN_MEMORY)
class OrderTimeoutsInMemoryIT extends OrderTimeoutScenarios {

    @Test
    void theTasksAreNotInTheTaskTable() {
        String key = Long.toString(create("{\"amount\": 3}").id());

        assertThat(tester.pending()).hasTask(OrderTimeouts.CANCEL_UNPAID, key);
        assertThat(rowsInTheTaskTable(OrderTimeouts.CANCEL_UNPAID, key)).isZero();
        assertThat(tester.advance(Duration.ofMinutes(30))).ranOnce(OrderTimeouts.CANCEL_UNPAID, key).succeeded();
    }
}
