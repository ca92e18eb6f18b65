package io.github.delayqueue.test;

import io.github.delayqueue.api.TaskStatus;

/** The test kit on the in-memory store, without a database or Redis: {@link DelayQueueTester#inMemory}. */
class InMemoryDelayQueueTesterTest extends DelayQueueTesterScenarios {

    @Override
    DelayQueueTester create(Object handlers) {
        return DelayQueueTester.inMemory(handlers);
    }

    @Override
    TaskStatus nearStatus() {
        return TaskStatus.SCHEDULED;
    }
}
