package io.github.delayqueue.test;

import java.util.Iterator;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The runs one call of a {@link DelayQueueTester} made, in the order they ran: what a test asserts on
 * ({@link DelayQueueAssertions#assertThat(TaskRuns)}) instead of waiting and looking at the database.
 */
public final class TaskRuns implements Iterable<TaskRun> {

    private final List<TaskRun> runs;

    TaskRuns(List<TaskRun> runs) {
        this.runs = List.copyOf(runs);
    }

    /**
     * Every run, in order.
     *
     * @return the runs
     */
    public List<TaskRun> list() {
        return runs;
    }

    /**
     * The runs of one type, in order.
     *
     * @param type the task type
     * @return its runs
     */
    public List<TaskRun> of(String type) {
        return runs.stream().filter(run -> run.type().equals(type)).toList();
    }

    /**
     * The runs of the task of this type and key, in order (every attempt).
     *
     * @param type the task type
     * @param key the task key
     * @return its runs
     */
    public List<TaskRun> of(String type, @Nullable String key) {
        return runs.stream().filter(run -> run.type().equals(type) && Objects.equals(run.key(), key)).toList();
    }

    /**
     * The runs that did not succeed, with what their handlers threw.
     *
     * @return the failed runs
     */
    public List<TaskRun> failures() {
        return runs.stream().filter(run -> !run.succeeded()).toList();
    }

    public int size() {
        return runs.size();
    }

    public boolean isEmpty() {
        return runs.isEmpty();
    }

    @Override
    public Iterator<TaskRun> iterator() {
        return runs.iterator();
    }

    @Override
    public String toString() {
        return runs.toString();
    }
}
