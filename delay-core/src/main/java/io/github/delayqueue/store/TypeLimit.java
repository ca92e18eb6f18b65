package io.github.delayqueue.store;

/**
 * A task type's limits across every instance that shares the task table, as a claim holds them: a store that claims
 * for several instances needs them to count what runs elsewhere.
 *
 * @param running most tasks of the type running at once (claimed under a live lease); 0 for no limit
 * @param startsPerSecond most tasks of the type claimed per second of the queue's clock; 0 for no limit
 */
public record TypeLimit(int running, int startsPerSecond) {

    public TypeLimit {
        if (running < 0 || startsPerSecond < 0) {
            throw new IllegalArgumentException("limits must not be negative: running " + running
                    + ", startsPerSecond " + startsPerSecond);
        }
    }

    /** Whether either limit holds. */
    public boolean any() {
        return running > 0 || startsPerSecond > 0;
    }
}
