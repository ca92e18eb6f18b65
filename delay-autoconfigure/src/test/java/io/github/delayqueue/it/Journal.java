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

    /** One handler start. */
    public record Start(long taskId, String instance, long startedAt, long dueAt, int attempt, Object payload) {
    }

    private final Map<Long, List<Start>> starts = new ConcurrentHashMap<>();

    private final List<Start> all = new CopyOnWriteArrayList<>();

    public void record(String instance, TaskContext context, Object payload) {
        Start start = new Start(context.id(), instance, System.currentTimeMillis(), context.dueAt().toEpochMilli(),
                context.attempt(), payload);
        starts.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>()).add(start);
        all.add(start);
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
