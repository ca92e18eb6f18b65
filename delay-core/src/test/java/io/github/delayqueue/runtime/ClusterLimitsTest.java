package io.github.delayqueue.runtime;

import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;

/** {@link ClusterLimitsScenarios} with the instances on one in-memory store. */
class ClusterLimitsTest extends ClusterLimitsScenarios {

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    @Override
    DelayQueueRuntimeBuilder instance() {
        return DelayQueueRuntime.builder(store, new InMemoryTaskInspector(store));
    }
}
