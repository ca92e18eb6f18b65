package io.github.delayqueue.store;

/**
 * A task type's limits across every instance that shares the task table, as a claim holds them: a store that claims
 * for several instances needs them to count what runs elsewhere.
 *
 * @param running most tasks of the type running at once (claimed under a live lease); 0 for no limit
 * @param startsPerSecond most tasks of the type claimed per second of the queue's clock; 0 for no limit
 */
public record TypeLimit(int running, int startsPerSecond) {

    /**
     * How far ahead of a claim's own second the second a type's starts were last counted in may be and still be
     * counted in: further, the clock that counted there is taken as wrong, not as a little ahead.
     */
    public static final long LONGEST_LEAD_MILLIS = 5_000;

    public TypeLimit {
        if (running < 0 || startsPerSecond < 0) {
            throw new IllegalArgumentException("limits must not be negative: running " + running
                    + ", startsPerSecond " + startsPerSecond);
        }
    }

    /**
     * The second (epoch milliseconds) a claim at {@code now} counts its starts of a per-second limit in, given the
     * second the type's starts were last counted in ({@code lastCounted}): its own, or the later one. A store
     * implementation counts by it, so that the second only moves forward: a claim whose clock reads an earlier second
     * (another instance's clock a little ahead, or a time read before that claim committed) must not start it afresh,
     * or claims alternating across a second's boundary each take the whole limit. A second more than
     * {@link #LONGEST_LEAD_MILLIS} ahead is not followed: one instance's wrong clock must not stop the others' claims.
     *
     * @return {@code lastCounted} when the claim counts on in it (from its count), else the claim's own second (from 0)
     */
    public static long countingSecond(long now, long lastCounted) {
        long own = Math.floorDiv(now, 1000) * 1000;
        return lastCounted > own && lastCounted - own <= LONGEST_LEAD_MILLIS ? lastCounted : own;
    }

    /** Whether either limit holds. */
    public boolean any() {
        return running > 0 || startsPerSecond > 0;
    }
}
