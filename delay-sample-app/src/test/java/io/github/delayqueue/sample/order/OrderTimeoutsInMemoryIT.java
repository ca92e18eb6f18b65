package io.github.delayqueue.sample.order;

import io.github.delayqueue.test.AutoConfigureDelayQueueTester;

/**
 * The same delayed behaviour with the queue's tasks in memory ({@code delay.test.store=in-memory}): the orders stay
 * in the test database, the tasks (and their index) do not touch it or Redis.
 */
@AutoConfigureDelayQueueTester(store = AutoConfigureDelayQueueTester.Store.IN_MEMORY)
class OrderTimeoutsInMemoryIT extends OrderTimeoutScenarios {
}
