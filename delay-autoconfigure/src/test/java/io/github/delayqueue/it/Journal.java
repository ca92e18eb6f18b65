package io.github.delayqueue.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskContext;

import static org.awaitility.Awaitility.await;

/**
 * Where test handlers write down every start, outside the queue: which task, on which instance, when, which
 * attempt. Tests assert on it: nothing lost, nothing run twice, nothing early.
 */
public final class Journal {

    /** One handler start; {@link #endedAt()} is set when the handler returns or throws. */
    public static final class Start {

        private final long taskId;

        private final String instance;

        private final long startedAt;

        private final long dueAt;

        private final int attempt;

        private final Object payload;

        private volatile long endedAt = Long.MAX_VALUE;

        Start(long taskId, String instance, long startedAt, long dueAt, int attempt, Object payload) {
            this.taskId = taskId;
            this.instance = instance;
            this.startedAt = startedAt;
            this.dueAt = dueAt;
            this.attempt = attempt;
            this.payload = payload;
        }

        public long taskId() {
            return taskId;
        }

        public String instance() {
            return instance;
        }

        public long startedAt() {
            return startedAt;
        }

        public long dueAt() {
            return dueAt;
        }

        public int attempt() {
            return attempt;
        }

        public Object payload() {
            return payload;
        }

        /** When the handler returned or threw; {@code Long.MAX_VALUE} while it runs (or if it never ended). */
        public long endedAt() {
            return endedAt;
        }

        public void end() {
            endedAt = System.currentTimeMillis();
        }
    }

    private final Map<Long, List<Start>> starts = new ConcurrentHashMap<>();

    private final List<Start> all = new CopyOnWriteArrayList<>();

    /** Writes down a start; call {@link Start#end()} on the result when the handler is done. */
    public Start record(String instance, TaskContext context, Object payload) {
        Start start = new Start(context.id(), instance, System.currentTimeMillis(), context.dueAt().toEpochMilli(),
                context.attempt(), payload);
        starts.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>()).add(start);
        all.add(start);
        return start;
    }

    /** Task ids that have at least one start. */
    public java.util.Set<Long> startedIds() {
        return java.util.Set.copyOf(starts.keySet());
    }

    public List<Start> startsOf(long taskId) {
        return starts.getOrDefault(taskId, List.of());
    }

    public int distinctTasks() {
        return starts.size();
    }

    public int totalStarts() {
        return all.size();
    }

    public List<Start> all() {
        return new ArrayList<>(all);
    }

    public void awaitStarted(long taskId, long seconds) {
        await().atMost(seconds, TimeUnit.SECONDS).pollInterval(10, TimeUnit.MILLISECONDS)
            .until(() -> !startsOf(taskId).isEmpty());
    }

    public void awaitDistinct(int count, long seconds) {
        await().atMost(seconds, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS)
            .until(() -> distinctTasks() >= count);
    }
}
