package io.github.delayqueue.runtime;

import java.util.HashSet;
import java.util.Set;

import io.github.delayqueue.store.TaskStore;

/**
 * The task types this instance does not claim although it serves them: those paused on every instance, a row each
 * in the store's table of paused types (written by {@link DelayQueueRuntime#pause}, read again every second by a job
 * of the engine, so a pause made on one instance holds on all within a second), and those this instance's
 * configuration pauses ({@code delay.paused-types}), for as long as it runs with it. When a type is resumed the
 * dispatcher is told at once, so its overdue tasks run without waiting for a round.
 */
final class PausedTypes {

    private final TaskStore store;

    private final Set<String> configured;

    private volatile Set<String> shared = Set.of();

    private volatile Runnable resumed = () -> {
    };

    PausedTypes(TaskStore store, Set<String> configured) {
        this.store = store;
        this.configured = Set.copyOf(configured);
    }

    void onResumed(Runnable listener) {
        this.resumed = listener;
    }

    /** Whether this instance must not claim {@code type} now. */
    boolean paused(String type) {
        return configured.contains(type) || shared.contains(type);
    }

    /** Every type paused here: on every instance, or by this instance's configuration. */
    Set<String> all() {
        Set<String> all = new HashSet<>(configured);
        all.addAll(shared);
        return Set.copyOf(all);
    }

    /** Reads the shared pauses again; tells the listener when a type is no longer paused. */
    void refresh() {
        Set<String> now = store.pausedTypes();
        Set<String> before = shared;
        shared = now;
        if (!now.containsAll(before)) {
            resumed.run();
        }
    }
}
