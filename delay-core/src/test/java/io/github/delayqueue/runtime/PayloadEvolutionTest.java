package io.github.delayqueue.runtime;

import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;

/** {@link PayloadEvolutionScenarios} on the in-memory store: one store for the runtimes of a test. */
class PayloadEvolutionTest extends PayloadEvolutionScenarios {

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    @Override
    DelayQueueRuntimeBuilder builder() {
        return DelayQueueRuntime.builder(store, new InMemoryTaskInspector(store));
    }
}
