package io.github.delayqueue.bench;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one workload does within a {@link BenchRun}: the run starts the instances, warms them up and starts the
 * counters; the workload schedules; the run waits for every start and result, then the workload may add its own
 * numbers before the instances stop.
 */
interface Workload {

    static Workload of(String name) {
        return switch (name) {
            case "burst", "mixed-durations" -> new UpFrontWorkload();
            case "steady", "mixed" -> new PacedWorkload();
            case "enqueue" -> new EnqueueWorkload();
            case "soak" -> new SoakWorkload();
            case "bulk" -> new BulkWorkload();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** Properties every instance of the run gets (the command line's win). */
    default Map<String, String> properties(BenchOptions options) {
        return Map.of();
    }

    /** Before the instances start, on the run's fresh database. */
    default void prepare(Run run, Map<String, Object> result) throws Exception {
    }

    /**
     * Once the instances run, before the counters start: tasks that warm the JIT and the pools, counted by their
     * handler in {@code warmups}. The usual one is {@code --warmup} tasks due at once.
     */
    default void warmUp(Run run, AtomicInteger warmups) throws Exception {
        WarmUp.standard(run.instances().queue(), run.options.warmup(run.spec.workload()), warmups);
    }

    /** Whether the raw ceiling is also measured before the workload (with the instances idle), not only after. */
    default boolean ceilingBefore() {
        return true;
    }

    /** Schedules the plan; returns when everything is scheduled. */
    void schedule(Run run, Map<String, Object> result) throws Exception;

    /** After every task started and every result was written, before the counters are read. */
    default void finish(Run run, Map<String, Object> result) throws Exception {
    }

    /** After the counters were read, before the instances stop: what must not count in the per-task costs. */
    default void afterMeasurement(Run run, Map<String, Object> result) throws Exception {
    }

    /** Stops whatever the workload still runs; called at the end of every run, also one that failed. */
    default void close() {
    }
}
