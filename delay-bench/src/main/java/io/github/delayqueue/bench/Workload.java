package io.github.delayqueue.bench;

import java.util.Map;

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

    /** Schedules the plan; returns when everything is scheduled. */
    void schedule(Run run, Map<String, Object> result) throws Exception;

    /** Whether the plan's tasks fall due during the run (the enqueue workload's do not). */
    default boolean runsTasks() {
        return true;
    }

    /** After every task started and every result was written, before the counters are read. */
    default void finish(Run run, Map<String, Object> result) throws Exception {
    }

    /** Stops whatever the workload still runs; called at the end of every run, also one that failed. */
    default void close() {
    }
}
