package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.ClaimedTask;

/**
 * The task types this instance claims now: those it has a handler for, less those paused ({@link PausedTypes}) and
 * those at their claim limit, twice their {@code concurrency} ({@link TypeLanes#room}). A task of a type it has no
 * handler for is never claimed here, so it waits, pending, for an instance that runs it (a newer version in a rolling
 * deploy, another application on the same table) instead of failing on one that cannot. A paused type's tasks stay
 * pending on every instance until it is resumed. A type at its limit is left out of the claims until one of its tasks
 * is done, so its backlog takes no claim slot another type could use. A type a claim found at its cluster-wide limit
 * ({@link ClusterLimits}) is left out the same way until it may have room again. Asked before every claim.
 */
final class ClaimableTypes {

    private final HandlerRegistry registry;

    private final TypeLanes lanes;

    private final PausedTypes paused;

    private final ClusterLimits cluster;

    /** Claimable types of handlers without cluster-wide limits (tests). */
    ClaimableTypes(HandlerRegistry registry, TypeLanes lanes, PausedTypes paused) {
        this(registry, lanes, paused, new ClusterLimits(registry, System::currentTimeMillis, 1_000));
    }

    ClaimableTypes(HandlerRegistry registry, TypeLanes lanes, PausedTypes paused, ClusterLimits cluster) {
        this.registry = registry;
        this.lanes = lanes;
        this.paused = paused;
        this.cluster = cluster;
        lanes.onDone(cluster::done);
    }

    /** The types a claim may take now; empty when there are none, and then nothing is claimed. */
    Set<String> now() {
        Set<String> types = new HashSet<>();
        for (String type : registry.types()) {
            if (!paused.paused(type) && lanes.room(type) > 0 && !cluster.atLimit(type)) {
                types.add(type);
            }
        }
        return types;
    }

    /**
     * How many tasks one claim may bring now: the room of the claimable types together ({@link Integer#MAX_VALUE}
     * when one of them has no limit). A claim of a single type with a backlog would otherwise bring a whole batch of
     * it and hand back all but its room, at every task of it that ends.
     */
    int room() {
        long room = 0;
        for (String type : now()) {
            room = Math.min(Integer.MAX_VALUE, room + lanes.room(type));
        }
        return (int) room;
    }

    /** How many more tasks of {@code type} may be claimed now: none while it is paused or at its cluster limit. */
    int room(String type) {
        return paused.paused(type) || cluster.atLimit(type) ? 0 : lanes.room(type);
    }

    /** The cluster-wide limits a claim of {@code types} must hold. */
    ClaimLimits limits(Set<String> types) {
        return cluster.of(types);
    }

    /** The served types a claim found at their cluster-wide limit, left out until a slot may be free. */
    Set<String> atClusterLimit() {
        Set<String> types = new HashSet<>();
        for (String type : registry.types()) {
            if (cluster.atLimit(type)) {
                types.add(type);
            }
        }
        return types;
    }

    /** Results of ended tasks were written: a type at its cluster-wide limit that ended one here has room again. */
    void written() {
        cluster.written();
    }

    /** When a type left out at its cluster-wide limit is to be tried again; {@link Long#MAX_VALUE} when none is. */
    long nextRecheck() {
        return cluster.nextRecheck();
    }

    /** The types this instance has handlers for that it cannot claim now: paused, or at their limit. */
    Set<String> servedButNotNow() {
        Set<String> types = new HashSet<>(registry.types());
        types.removeAll(now());
        return types;
    }

    /**
     * Tells {@code listener} when a paused type is resumed, or a type at its cluster-wide limit ended a task here:
     * its due tasks should be claimed at once.
     */
    void onClaimableAgain(Runnable listener) {
        paused.onResumed(listener);
        cluster.onFreed(listener);
    }

    /** The types this instance has handlers for, whether or not it can start one now. */
    Set<String> served() {
        return registry.types();
    }

    /**
     * Splits a claim, in its order, into what fits each type's room ({@code fits}) and what is beyond it
     * ({@code beyond}, to hand back): a claim takes up to its size of whatever is due, and may bring more of a type
     * that had room for one than that one.
     */
    void fit(List<ClaimedTask> claimed, List<ClaimedTask> fits, List<ClaimedTask> beyond) {
        Map<String, Integer> room = new HashMap<>();
        for (ClaimedTask task : claimed) {
            int left = room.computeIfAbsent(task.type(), lanes::room);
            if (left > 0) {
                fits.add(task);
                room.put(task.type(), left == Integer.MAX_VALUE ? left : left - 1);
            }
            else {
                beyond.add(task);
            }
        }
    }

    /** {@link #fit} for a caller that hands back what is beyond the room itself: what fits. */
    List<ClaimedTask> fitting(List<ClaimedTask> claimed, List<ClaimedTask> beyond) {
        List<ClaimedTask> fits = new ArrayList<>(claimed.size());
        fit(claimed, fits, beyond);
        return fits;
    }
}
