package io.github.delayqueue.runtime;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.TypeLimit;

/**
 * The cluster-wide limits of this instance's types ({@code @DelayedHandler(clusterConcurrency,
 * clusterStartsPerSecond)}) and which of them the last claims found reached. The store holds a limit inside each claim
 * ({@link ClaimLimits}); this keeps a type whose limit stopped a claim out of the next claims ({@link #atLimit}) until
 * a slot may be free again: as soon as the result of a task of it that ended here is written, else after the recheck
 * (the poll interval, at most a second; the next second for a per-second limit), since what ends on other instances is
 * seen only by asking the database. So a type at its limit costs one claim statement per recheck and instance, not one
 * per claim round.
 */
final class ClusterLimits {

    private static final long LONGEST_RECHECK_MILLIS = 1_000;

    private final HandlerRegistry registry;

    private final LongSupplier clock;

    private final long recheckMillis;

    /** Types whose limit a claim reached, and when to ask the database again. */
    private final Map<String, Long> atLimitUntil = new ConcurrentHashMap<>();

    /** Types at their limit with a task that ended here since the last results were written. */
    private final Set<String> endedHere = ConcurrentHashMap.newKeySet();

    private volatile Runnable freed = () -> {
    };

    ClusterLimits(HandlerRegistry registry, LongSupplier clock, long pollMillis) {
        this.registry = registry;
        this.clock = clock;
        this.recheckMillis = Math.max(1, Math.min(pollMillis, LONGEST_RECHECK_MILLIS));
    }

    /** The limits a claim of {@code types} holds; a type whose limit it reaches is left out until it may have room. */
    ClaimLimits of(Set<String> types) {
        Map<String, TypeLimit> limits = new HashMap<>();
        for (String type : types) {
            TaskHandler handler = registry.find(type);
            if (handler != null) {
                HandlerSettings settings = handler.settings();
                TypeLimit limit = new TypeLimit(settings.clusterConcurrency(), settings.clusterStartsPerSecond());
                if (limit.any()) {
                    limits.put(type, limit);
                }
            }
        }
        return limits.isEmpty() ? ClaimLimits.none() : new ClaimLimits(limits, this::reached);
    }

    /** Whether a claim found {@code type} at its limit, and the recheck has not come yet. */
    boolean atLimit(String type) {
        Long until = atLimitUntil.get(type);
        if (until == null) {
            return false;
        }
        if (clock.getAsLong() < until) {
            return true;
        }
        atLimitUntil.remove(type, until);
        return false;
    }

    /** When the earliest type at its limit is to be asked for again; {@link Long#MAX_VALUE} when none is. */
    long nextRecheck() {
        long next = Long.MAX_VALUE;
        for (long until : atLimitUntil.values()) {
            next = Math.min(next, until);
        }
        return next;
    }

    /**
     * A task of {@code type} left this instance's pool. Its slot is free in the database once its result is written
     * ({@link #written}): claimed at once, the database would still count it running.
     */
    void done(String type) {
        if (atLimitUntil.containsKey(type)) {
            endedHere.add(type);
        }
    }

    /** The results of tasks that ended here were written: a type at its limit with one among them has a slot now. */
    void written() {
        boolean any = false;
        for (String type : endedHere) {
            endedHere.remove(type);
            any |= atLimitUntil.remove(type) != null;
        }
        if (any) {
            freed.run();
        }
    }

    /** Told when a type at its limit may have room again. */
    void onFreed(Runnable listener) {
        this.freed = listener;
    }

    private void reached(String type) {
        long now = clock.getAsLong();
        long until = now + recheckMillis;
        TaskHandler handler = registry.find(type);
        if (handler != null && handler.settings().clusterStartsPerSecond() > 0) {
            until = Math.min(until, Math.floorDiv(now, 1000) * 1000 + 1000); // the next second has room again
        }
        atLimitUntil.put(type, until);
    }
}
