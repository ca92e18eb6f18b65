package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What became of the tasks of a run, from the {@link Recorder}: each task started exactly once (duplicates,
 * losses), none early, and how late they started, on two clocks:
 *
 * <ul>
 * <li>{@code lateness_*}, the headline: the handler's {@code Instant.now()} minus the due instant the caller passed,
 * both on the wall clock, so everything between the two is counted, the queue clock's offset uncertainty
 * included;</li>
 * <li>{@code queue_lateness_*}: the instance's {@code QueueClock} at the start minus {@code TaskContext.dueAt}, the
 * queue's own view (how precisely it meets the due time it stored).</li>
 * </ul>
 */
final class Outcomes {

    /** Starts this much before the due time count as early; below it is the clocks' reading granularity. */
    static final double EARLY_TOLERANCE_MS = 1.0;

    private Outcomes() {
    }

    static void describe(Recorder recorder, int instances, Map<String, Object> result) {
        Plan plan = recorder.plan();
        String workload = plan.workload;
        int n = recorder.size();
        long lost = 0;
        long duplicates = 0;
        long early = 0;
        long queueEarly = 0;
        long dueMismatch = 0;
        long dueUnchecked = 0;
        boolean enqueue = workload.equals("enqueue");
        List<Double> afterCall = new ArrayList<>();
        long lastStart = Long.MIN_VALUE;
        long firstStart = Long.MAX_VALUE;
        List<Double> wall = new ArrayList<>(n);
        List<Double> queue = new ArrayList<>(n);
        List<Double> tier0 = new ArrayList<>();
        List<Double> tier1 = new ArrayList<>();
        List<Double> queueTier0 = new ArrayList<>();
        List<Double> queueTier1 = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int starts = recorder.starts(i);
            if (starts == 0) {
                lost++;
                continue;
            }
            duplicates += starts - 1;
            long start = recorder.firstStartWallMicros(i);
            lastStart = Math.max(lastStart, start);
            firstStart = Math.min(firstStart, start);
            double late = (start - plan.dueWallMicros[i]) / 1000.0;
            double queueLate = (recorder.firstStartQueueMicros(i) - recorder.contextDueMillis(i) * 1000) / 1000.0;
            if (late < -EARLY_TOLERANCE_MS) {
                early++;
            }
            if (queueLate < -EARLY_TOLERANCE_MS) {
                queueEarly++;
            }
            if (plan.queueDueMillis[i] == Plan.DUE_UNCHECKED) {
                dueUnchecked++;
            }
            else if (recorder.contextDueMillis(i) != plan.queueDueMillis[i]) {
                dueMismatch++;
            }
            if (enqueue && plan.calledWallMicros[i] != 0) {
                // a task whose call returned after its due time cannot start before the call returned
                afterCall.add((start - Math.max(plan.dueWallMicros[i], plan.calledWallMicros[i])) / 1000.0);
            }
            wall.add(late);
            queue.add(queueLate);
            (plan.tier[i] == 0 ? tier0 : tier1).add(late);
            (plan.tier[i] == 0 ? queueTier0 : queueTier1).add(queueLate);
        }
        result.put("started", wall.size());
        result.put("duplicates", duplicates);
        result.put("lost", lost);
        result.put("started_early", early);
        result.put("queue_started_early", queueEarly);
        result.put("due_mismatch", dueMismatch);
        if (enqueue) {
            result.put("due_unchecked", dueUnchecked);
        }
        result.put("retried", recorder.retries());
        double[] sorted = Stats.sorted(wall);
        result.put("lateness_min_ms", Stats.round(Stats.percentile(sorted, 0)));
        Stats.percentiles(result, "lateness_", sorted, true);
        result.put("lateness_mean_ms", Stats.round(Stats.mean(sorted)));
        Stats.percentiles(result, "queue_lateness_", Stats.sorted(queue), true);
        if ((workload.equals("burst") || enqueue) && !wall.isEmpty()) {
            long due = plan.dueWallMicros[0];
            if (!enqueue) { // an enqueue's drain is paced by its calls when they outlast the lead
                result.put("drain_per_s", Stats.round(n / ((lastStart - due) / 1e6)));
            }
            result.put("first_start_after_due_ms", Stats.round((firstStart - due) / 1000.0));
            result.put("last_start_after_due_ms", Stats.round((lastStart - due) / 1000.0));
        }
        if (enqueue) {
            Stats.percentiles(result, "lateness_after_call_", Stats.sorted(afterCall), false);
        }
        if (workload.equals("mixed")) {
            tier(result, "near_", tier0, queueTier0);
            tier(result, "far_", tier1, queueTier1);
        }
        if (workload.equals("mixed-durations")) {
            tier(result, "fast_", tier0, queueTier0);
            tier(result, "slow_", tier1, queueTier1);
        }
        if (plan.clusterLimit > 0) {
            // each type's own drain: the unlimited one must not be held by the other's limit
            result.put("cluster_limit", plan.clusterLimit);
            tier(result, "unlimited_", tier0, queueTier0);
            result.put("unlimited_drain_per_s", drain(plan, recorder, Plan.UNLIMITED));
            tier(result, "limited_", tier1, queueTier1);
            result.put("limited_drain_per_s", drain(plan, recorder, Plan.LIMITED));
        }
        List<Long> perInstance = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            perInstance.add(recorder.startsOn(i));
        }
        result.put("starts_by_instance", perInstance);
    }

    /** Tasks of one tier per second, from the first due time to the tier's last start. */
    private static double drain(Plan plan, Recorder recorder, byte tier) {
        long due = plan.firstDueWallMicros();
        long last = Long.MIN_VALUE;
        int tasks = 0;
        for (int i = 0; i < plan.size(); i++) {
            if (plan.tier[i] == tier && recorder.starts(i) > 0) {
                tasks++;
                last = Math.max(last, recorder.firstStartWallMicros(i));
            }
        }
        return tasks == 0 ? 0 : Stats.round(tasks / ((last - due) / 1e6));
    }

    private static void tier(Map<String, Object> result, String prefix, List<Double> wall, List<Double> queue) {
        result.put(prefix + "tasks", wall.size());
        Stats.percentiles(result, prefix, Stats.sorted(wall), false);
        Stats.percentiles(result, "queue_" + prefix, Stats.sorted(queue), false);
    }
}
