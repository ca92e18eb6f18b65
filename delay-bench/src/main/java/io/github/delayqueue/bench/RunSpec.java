package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of the command: a workload in a mode with a number of instances, at a rate (paced workloads), against
 * one Redis or a Redis Cluster (hybrid mode), in a variant (mixed-durations: the starter's prefetch, then none), and
 * for enqueue with a number of calling threads, in a fresh or a warm JVM, with or without a transaction per call,
 * with or without a key per call.
 *
 * @param rate tasks per second of a paced workload, 0 otherwise
 * @param redis {@code single} or {@code cluster}; jdbc-mode runs use no Redis and are always {@code single}
 * @param variant {@code ""}, or for mixed-durations {@code prefetch-default} / {@code prefetch-0}
 * @param callers enqueue: threads calling {@code schedule()}; 0 otherwise
 * @param jvm enqueue: {@code fresh} or {@code warm}; {@code ""} otherwise
 * @param tx enqueue: {@code none} or {@code business-row}; {@code ""} otherwise
 * @param keyed enqueue: whether each call passes a key of its own (and the raw loops insert it); false otherwise
 */
record RunSpec(String workload, String mode, int instances, int rate, String redis, String variant, int repetition,
        int callers, String jvm, String tx, boolean keyed) {

    static final String PREFETCH_DEFAULT = "prefetch-default";

    static final String PREFETCH_ZERO = "prefetch-0";

    /** A run of any workload but enqueue. */
    RunSpec(String workload, String mode, int instances, int rate, String redis, String variant, int repetition) {
        this(workload, mode, instances, rate, redis, variant, repetition, 0, "", "", false);
    }

    boolean cluster() {
        return redis.equals("cluster");
    }

    /** Whether the run must be the first thing its JVM does (so it runs in a child JVM of its own). */
    boolean fresh() {
        return jvm.equals(BenchOptions.FRESH);
    }

    /** Whether each call runs in a transaction that also writes a business row. */
    boolean businessRow() {
        return tx.equals(BenchOptions.TX_BUSINESS_ROW);
    }

    /** Properties the variant adds to every instance. */
    Map<String, String> variantProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        if (variant.equals(PREFETCH_ZERO)) {
            properties.put("delay.worker.prefetch", "0");
        }
        return properties;
    }

    String describe() {
        return workload + " " + mode + (cluster() ? " (cluster)" : "") + " x" + instances
                + (rate > 0 ? " " + rate + "/s" : "") + (variant.isEmpty() ? "" : " " + variant)
                + (callers > 0 ? " " + callers + " threads " + jvm + " tx " + tx + (keyed ? " keyed" : "") : "")
                + " #" + repetition;
    }

    /**
     * Every run the options ask for, repetition by repetition (round-robin, so a noisy minute hurts every
     * combination alike). A jdbc-mode run is made once however many Redis setups are listed: it uses none. The
     * child JVM of a fresh run gets its one combination pinned on its command line and numbers it as told.
     */
    static List<RunSpec> expand(BenchOptions options) {
        List<RunSpec> runs = new ArrayList<>();
        int first = options.isFreshChild() ? options.freshChild : 1;
        for (int repetition = first; repetition < first + options.repeat; repetition++) {
            for (String workload : options.workloads) {
                List<Integer> rates = BenchOptions.paced(workload) ? options.rates : List.of(0);
                List<String> variants = workload.equals("mixed-durations")
                        ? List.of(PREFETCH_DEFAULT, PREFETCH_ZERO) : List.of("");
                boolean enqueue = workload.equals("enqueue");
                List<Integer> callers = enqueue ? options.enqueueThreads : List.of(0);
                List<String> jvms = enqueue ? options.jvms : List.of("");
                List<String> txs = enqueue ? options.txs : List.of("");
                List<Boolean> keyeds = enqueue ? options.keyeds : List.of(false);
                for (String mode : options.modes) {
                    List<String> redis = mode.equals("hybrid") ? options.redis : List.of("single");
                    for (int instances : options.instances(workload)) {
                        for (int rate : rates) {
                            for (String setup : redis) {
                                for (String variant : variants) {
                                    for (int threads : callers) {
                                        for (String jvm : jvms) {
                                            for (String tx : txs) {
                                                for (boolean keyed : keyeds) {
                                                    runs.add(new RunSpec(workload, mode, instances, rate, setup,
                                                            variant, repetition, threads, jvm, tx, keyed));
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return runs;
    }
}
