package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of the command: a workload in a mode with a number of instances, at a rate (paced workloads), against
 * one Redis or a Redis Cluster (hybrid mode), in a variant (mixed-durations: the starter's prefetch, then none).
 *
 * @param rate tasks per second of a paced workload, 0 otherwise
 * @param redis {@code single} or {@code cluster}; jdbc-mode runs use no Redis and are always {@code single}
 * @param variant {@code ""}, or for mixed-durations {@code prefetch-default} / {@code prefetch-0}
 */
record RunSpec(String workload, String mode, int instances, int rate, String redis, String variant, int repetition) {

    static final String PREFETCH_DEFAULT = "prefetch-default";

    static final String PREFETCH_ZERO = "prefetch-0";

    boolean cluster() {
        return redis.equals("cluster");
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
                + (rate > 0 ? " " + rate + "/s" : "") + (variant.isEmpty() ? "" : " " + variant) + " #" + repetition;
    }

    /**
     * Every run the options ask for, repetition by repetition (round-robin, so a noisy minute hurts every
     * combination alike). A jdbc-mode run is made once however many Redis setups are listed: it uses none.
     */
    static List<RunSpec> expand(BenchOptions options) {
        List<RunSpec> runs = new ArrayList<>();
        for (int repetition = 1; repetition <= options.repeat; repetition++) {
            for (String workload : options.workloads) {
                List<Integer> rates = BenchOptions.paced(workload) ? options.rates : List.of(0);
                List<String> variants = workload.equals("mixed-durations")
                        ? List.of(PREFETCH_DEFAULT, PREFETCH_ZERO) : List.of("");
                for (String mode : options.modes) {
                    List<String> redis = mode.equals("hybrid") ? options.redis : List.of("single");
                    for (int instances : options.instances(workload)) {
                        for (int rate : rates) {
                            for (String setup : redis) {
                                for (String variant : variants) {
                                    runs.add(new RunSpec(workload, mode, instances, rate, setup, variant, repetition));
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
