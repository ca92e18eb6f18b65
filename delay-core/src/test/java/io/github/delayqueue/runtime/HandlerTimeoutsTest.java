package io.github.delayqueue.runtime;

import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;

/** {@link HandlerTimeoutScenarios} on the in-memory store, with the engine's own threads. */
class HandlerTimeoutsTest extends HandlerTimeoutScenarios {

    @Override
    DelayQueueRuntimeBuilder builder() {
        InMemoryTaskStore store = new InMemoryTaskStore();
        return DelayQueueRuntime.builder(store, new InMemoryTaskInspector(store));
    }
}
