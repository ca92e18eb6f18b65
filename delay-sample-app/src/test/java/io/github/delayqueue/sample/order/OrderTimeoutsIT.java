package io.github.delayqueue.sample.order;

/**
 * The order service's delayed behaviour on the queue's real task table, on the test database the application uses
 * (and Redis, as in production): what the test kit runs is claimed, run and completed there.
 */
class OrderTimeoutsIT extends OrderTimeoutScenarios {
}
