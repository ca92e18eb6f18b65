package io.github.delayqueue.runtime;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.runtime.HeldTasks.Held;
import org.jspecify.annotations.Nullable;

/**
 * Each task type's share of the pool: at most its handler's {@code concurrency} running at once (no limit when it
 * declares none, or the type has no handler), the rest of its tasks queued in claim order, claimed, with their lease
 * kept.
 */
final class TypeLanes {

    private final HandlerRegistry registry;

    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    TypeLanes(HandlerRegistry registry) {
        this.registry = registry;
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

        synchronized @Nullable Held next() {
            Held next = waiting.poll();
            if (next == null) {
                running--;
            }
            return next;
        }
    }
}
