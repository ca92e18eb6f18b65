package io.github.delayqueue.bench;

import java.time.Duration;
import java.util.Random;

/**
 * When each task of a run is scheduled and when it falls due. Slots are 0..n-1 in scheduling order; due times are
 * absolute queue-clock milliseconds from an origin taken just before the workload starts.
 *
 * <ul>
 * <li>burst: all scheduled at once with one {@code scheduleAll}, all due at origin + lead;</li>
 * <li>steady: {@code rate} per second over {@code duration}, each due lead after its scheduling time, so due times
 * are uniform;</li>
 * <li>mixed: like steady, but 80% with a delay uniform in [lead, threshold - 0.5s] (indexed at once in hybrid mode)
 * and 20% uniform in [threshold + 1s, farMax] (kept in the database until migration moves them);</li>
 * <li>enqueue: n tasks for {@code scheduleAll} and n for single calls, all due 30 minutes ahead (nothing runs).</li>
 * </ul>
 */
final class Plan {

    static final byte NEAR = 0;

    static final byte FAR = 1;

    final String workload;

    /** Microseconds after the origin at which each slot is scheduled (non-decreasing). */
    final long[] scheduleAtMicros;

    /** Absolute due time of each slot (filled by {@link #place}). */
    final long[] dueMillis;

    /** Delay of each slot relative to its scheduling time, in ms (burst: relative to the origin). */
    private final long[] delayMillis;

    final byte[] tier;

    private Plan(String workload, int size) {
        this.workload = workload;
        this.scheduleAtMicros = new long[size];
        this.dueMillis = new long[size];
        this.delayMillis = new long[size];
        this.tier = new byte[size];
    }

    int size() {
        return dueMillis.length;
    }

    static int size(BenchOptions options, String workload, int rate) {
        return switch (workload) {
            case "burst" -> options.tasks;
            case "enqueue" -> options.tasks * 2;
            default -> (int) Math.max(1, Math.round(rate * options.duration.toMillis() / 1000.0));
        };
    }

    static Plan build(BenchOptions options, String workload, int rate, long seed) {
        Plan plan = new Plan(workload, size(options, workload, rate));
        int n = plan.size();
        switch (workload) {
            case "burst" -> {
                long lead = options.burstLead.toMillis();
                for (int i = 0; i < n; i++) {
                    plan.delayMillis[i] = lead;
                }
            }
            case "enqueue" -> {
                long later = Duration.ofMinutes(30).toMillis();
                for (int i = 0; i < n; i++) {
                    plan.delayMillis[i] = later;
                }
            }
            case "steady" -> {
                long lead = options.steadyLead.toMillis();
                for (int i = 0; i < n; i++) {
                    plan.scheduleAtMicros[i] = Math.round(i * 1_000_000.0 / rate);
                    plan.delayMillis[i] = lead;
                }
            }
            case "mixed" -> {
                Random random = new Random(seed);
                long lead = options.steadyLead.toMillis();
                long threshold = options.threshold.toMillis();
                long nearMax = Math.max(lead + 1, threshold - 500);
                long farMin = threshold + 1000;
                long farMax = Math.max(farMin + 1, options.effectiveFarMax().toMillis());
                for (int i = 0; i < n; i++) {
                    plan.scheduleAtMicros[i] = Math.round(i * 1_000_000.0 / rate);
                    boolean near = random.nextDouble() < 0.8;
                    plan.tier[i] = near ? NEAR : FAR;
                    plan.delayMillis[i] = near ? lead + (long) (random.nextDouble() * (nearMax - lead))
                            : farMin + (long) (random.nextDouble() * (farMax - farMin));
                }
            }
            default -> throw new IllegalArgumentException(workload);
        }
        return plan;
    }

    /** Fixes the due times against the origin (queue-clock ms). */
    void place(long originMillis) {
        for (int i = 0; i < size(); i++) {
            long scheduledAt = workload.equals("burst") || workload.equals("enqueue") ? 0
                    : scheduleAtMicros[i] / 1000;
            dueMillis[i] = originMillis + scheduledAt + delayMillis[i];
        }
    }

    long lastDueMillis() {
        long last = Long.MIN_VALUE;
        for (long due : dueMillis) {
            last = Math.max(last, due);
        }
        return last;
    }
}
