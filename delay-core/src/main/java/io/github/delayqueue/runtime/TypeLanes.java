package io.github.delayqueue.runtime;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.runtime.HeldTasks.Held;
import org.jspecify.annotations.Nullable;

/**
 * Each task type's share of the pool: at most its handler's {@code concurrency} running at once (no limit when it
 * declares none, or the type has no handler), the rest of its tasks queued in claim order, claimed, with their lease
 * kept. It also counts the tasks of each type the pool holds (claimed and not yet done), so that a type is claimed
 * only up to twice its {@code concurrency} ({@link #room}): as many as may run, and as many again ready to start as
 * each ends (so a quick type with a limit does not wait for a claim between two tasks). A type at its limit with a
 * backlog then takes no more claim slots than that from the other types, and what waits of it starts within one of
 * its handler runs.
 */
final class TypeLanes {

    private final HandlerRegistry registry;

    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    /** Told when a type at its limit gets room again: the dispatcher may claim it now. */
    private volatile Runnable roomFreed = () -> {
    };

    /** Told the type of each held task that leaves the pool. */
    private volatile Consumer<String> typeDone = type -> {
    };

    TypeLanes(HandlerRegistry registry) {
        this.registry = registry;
    }

    void onRoomFreed(Runnable listener) {
        this.roomFreed = listener;
    }

    void onDone(Consumer<String> listener) {
        this.typeDone = listener;
    }

    /** The pool took a claimed task of {@code type}: it counts against the type's room until {@link #done}. */
    void held(String type) {
        lane(type).held(1);
    }

    /** A held task of {@code type} left the pool: it ran, or was given up or handed back without starting. */
    void done(String type) {
        if (lane(type).held(-1)) {
            roomFreed.run();
        }
        typeDone.accept(type);
    }

    /**
     * How many more tasks of {@code type} may be claimed now: twice its {@code concurrency} less the tasks of it
     * held; {@link Integer#MAX_VALUE} for a type without a limit.
     */
    int room(String type) {
        return lane(type).room();
    }

    /** A task ready to start: returned when its type has room (it counts as running then), queued otherwise. */
    @Nullable Held offer(Held entry) {
        return lane(entry.task.type()).offer(entry);
    }

    /** A task of {@code type} is done running: the next of its type to start, or {@code null} when none waits. */
    @Nullable Held next(String type) {
        return lane(type).next();
    }

    private Lane lane(String type) {
        return lanes.computeIfAbsent(type, t -> {
            TaskHandler handler = registry.find(t);
            int limit = handler == null || handler.settings().concurrency() <= 0 ? Integer.MAX_VALUE
                    : handler.settings().concurrency();
            return new Lane(limit);
        });
    }

    /** One task type's share of the pool: at most {@code limit} running, the rest queued in claim order. */
    private static final class Lane {

        private final int limit;

        private int running;

        /** Tasks of the type the pool holds: on a timer, queued here, waiting for a thread or running. */
        private int held;

        private final ArrayDeque<Held> waiting = new ArrayDeque<>();

        Lane(int limit) {
            this.limit = limit;
        }

        synchronized @Nullable Held offer(Held entry) {
            if (running < limit) {
                running++;
                return entry;
            }
            waiting.add(entry);
            return null;
        }

        /** Counts {@code delta} more held tasks; {@code true} when that took the lane from its limit to below it. */
        synchronized boolean held(int delta) {
            boolean wasFull = held >= claimLimit();
            held += delta;
            return wasFull && held < claimLimit();
        }

        synchronized int room() {
            return limit == Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(0, claimLimit() - held);
        }

        /** The most tasks of the type held at once: its limit running, as many again ready to start. */
        private long claimLimit() {
            return limit == Integer.MAX_VALUE ? Long.MAX_VALUE : 2L * limit;
        }

        synchronized @Nullable Held next() {
            Held next = waiting.poll();
            if (next == null) {
                running--;
            }
            return next;
        }
    }
}
