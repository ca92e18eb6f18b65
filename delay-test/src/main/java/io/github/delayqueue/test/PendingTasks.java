package io.github.delayqueue.test;

import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.github.delayqueue.api.TaskView;
import org.jspecify.annotations.Nullable;

/**
 * The tasks that have not started yet (pending, or follow-ups waiting for their key's running task), earliest due
 * first, as a {@link DelayQueueTester} read them at {@link #now()}: what a test asserts on
 * ({@link DelayQueueAssertions#assertThat(PendingTasks)}), due times relative to that now included.
 */
public final class PendingTasks implements Iterable<TaskView> {

    private final List<TaskView> tasks;

    private final Instant now;

    PendingTasks(List<TaskView> tasks, Instant now) {
        this.tasks = List.copyOf(tasks);
        this.now = now;
    }

    /**
     * The test clock's time when the tasks were read, which {@code dueIn} assertions count from.
     *
     * @return the time of the reading
     */
    public Instant now() {
        return now;
    }

    /**
     * Every task, earliest due first.
     *
     * @return the tasks
     */
    public List<TaskView> list() {
        return tasks;
    }

    /**
     * The tasks of one type, earliest due first.
     *
     * @param type the task type
     * @return its tasks
     */
    public List<TaskView> of(String type) {
        return tasks.stream().filter(task -> task.type().equals(type)).toList();
    }

    /**
     * The task of this type and key (a key names one live task; a waiting follow-up comes after it).
     *
     * @param type the task type
     * @param key the task key
     * @return the earliest such task, if any
     */
    public Optional<TaskView> find(String type, @Nullable String key) {
        return tasks.stream().filter(task -> task.type().equals(type) && Objects.equals(task.key(), key)).findFirst();
    }

    public int size() {
        return tasks.size();
    }

    public boolean isEmpty() {
        return tasks.isEmpty();
    }

    @Override
    public Iterator<TaskView> iterator() {
        return tasks.iterator();
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("pending at " + now + ":");
        tasks.forEach(task -> text.append("\n  ").append(task.type()).append(task.key() == null ? "" : "[" + task.key()
                + "]").append(" #").append(task.id()).append(' ').append(task.status()).append(" due ")
            .append(task.dueAt()));
        return text.toString();
    }
}
