package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak, interval by interval ("per minute" at the default {@code --report-every}): from the samples taken at
 * each boundary and the recorded starts, what each interval saw, and the verdict on the whole run.
 */
final class Intervals {

    /** Second-half growth per interval above this share of the rows scheduled per interval: the table grows. */
    static final double GROWTH_TOLERANCE = 0.05;

    /** The last interval's p99 this many times the first's, and this many ms more: lateness degrades. */
    static final double P99_RATIO_LIMIT = 2.0;

    static final double P99_SLACK_MS = 5.0;

    private Intervals() {
    }

    /**
     * A boundary: when, the watched SQL totals, tasks scheduled so far, CPU seconds of the database and Redis so far
     * (NaN when unknown), and the machine's CPU ticks.
     */
    record Sample(long atWallMicros, SqlWatch.Mark mark, long scheduled, double dbCpuSeconds, double redisCpuSeconds,
            long[] machineTicks, Map<String, Long> bufferPool) {
    }

    /**
     * One map per interval between consecutive samples. Lateness is of the tasks due within the interval (the last
     * interval, the tail after the producer stopped, takes everything due later). Rows in the table are tracked as
     * the rows at the first sample, plus tasks scheduled, minus rows purged.
     *
     * @param probes the probe timings taken right after each sample (same index; missing ones are left out)
     * @param tail whether the last interval is the tail (ends when the last result was written, not on a boundary)
     */
    static List<Map<String, Object>> describe(Plan plan, Recorder recorder, List<Sample> samples,
            List<Map<String, Object>> probes, long initialRows, boolean tail) {
        int intervals = samples.size() - 1;
        List<List<Double>> wall = new ArrayList<>();
        List<List<Double>> queue = new ArrayList<>();
        long[] due = new long[Math.max(0, intervals)];
        for (int k = 0; k < intervals; k++) {
            wall.add(new ArrayList<>());
            queue.add(new ArrayList<>());
        }
        long[] bounds = new long[samples.size()];
        for (int k = 0; k < bounds.length; k++) {
            bounds[k] = samples.get(k).atWallMicros();
        }
        for (int i = 0; i < plan.size(); i++) {
            int k = bucket(bounds, plan.dueWallMicros[i], tail);
            if (k < 0) {
                continue;
            }
            due[k]++;
            if (recorder.starts(i) > 0) {
                wall.get(k).add((recorder.firstStartWallMicros(i) - plan.dueWallMicros[i]) / 1000.0);
                queue.get(k).add((recorder.firstStartQueueMicros(i) - recorder.contextDueMillis(i) * 1000) / 1000.0);
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        long purgedSoFar = 0;
        long rowsBefore = initialRows;
        Sample origin = samples.get(0);
        for (int k = 0; k < intervals; k++) {
            Sample from = samples.get(k);
            Sample to = samples.get(k + 1);
            SqlWatch.Window window = SqlWatch.between(from.mark(), to.mark());
            Map<String, Object> interval = new LinkedHashMap<>();
            interval.put("interval", k + 1);
            interval.put("from_s", Stats.round((from.atWallMicros() - origin.atWallMicros()) / 1e6));
            interval.put("to_s", Stats.round((to.atWallMicros() - origin.atWallMicros()) / 1e6));
            if (tail && k == intervals - 1) {
                interval.put("tail", true);
            }
            interval.put("due", due[k]);
            interval.put("started", wall.get(k).size());
            Stats.percentiles(interval, "lateness_", Stats.sorted(wall.get(k)), false);
            Stats.percentiles(interval, "queue_lateness_", Stats.sorted(queue.get(k)), false);
            long scheduled = to.scheduled() - from.scheduled();
            purgedSoFar += window.purgedRows();
            long rows = initialRows + to.scheduled() - purgedSoFar;
            interval.put("scheduled", scheduled);
            interval.put("completed", window.succeededRows());
            interval.put("purged", window.purgedRows());
            interval.put("rows", rows);
            interval.put("rows_change", rows - rowsBefore);
            rowsBefore = rows;
            SqlWatch.describe(window, interval);
            interval.remove("purged_rows"); // "purged" above
            interval.remove("succeeded_rows"); // "completed" above
            double dbCpu = to.dbCpuSeconds() - from.dbCpuSeconds();
            interval.put("db_cpu_s", Stats.round(dbCpu));
            interval.put("db_cpu_ms_per_task", perTask(dbCpu, window.succeededRows()));
            interval.put("redis_cpu_ms_per_task",
                    perTask(to.redisCpuSeconds() - from.redisCpuSeconds(), window.succeededRows()));
            interval.put("machine_busy_pct", Stats.round(Machine.busyPercent(from.machineTicks(), to.machineTicks())));
            bufferPool(from.bufferPool(), to.bufferPool(), interval);
            if (k + 1 < probes.size() && probes.get(k + 1) != null) {
                probes.get(k + 1).forEach((name, value) -> {
                    if (!name.equals("at_wall_ms")) {
                        interval.put(name, value);
                    }
                });
            }
            out.add(interval);
        }
        return out;
    }

    /**
     * The interval {@code [bounds[k], bounds[k+1])} a due time falls in: -1 before the first bound, and after the
     * last one the last interval when it is open-ended (the tail), else -1.
     */
    static int bucket(long[] bounds, long dueMicros, boolean openEnded) {
        if (bounds.length < 2 || dueMicros < bounds[0]) {
            return -1;
        }
        for (int k = 1; k < bounds.length; k++) {
            if (dueMicros < bounds[k]) {
                return k - 1;
            }
        }
        return openEnded ? bounds.length - 2 : -1;
    }

    /**
     * What the database's buffer pool did in the interval: pages flushed and read from disk, and the dirty pages left
     * at its end (a preloaded table is still being flushed in the first intervals).
     */
    private static void bufferPool(Map<String, Long> from, Map<String, Long> to, Map<String, Object> interval) {
        Long dirty = to.get("Innodb_buffer_pool_pages_dirty");
        if (dirty == null || from.isEmpty()) {
            return;
        }
        interval.put("db_pages_flushed", to.getOrDefault("Innodb_buffer_pool_pages_flushed", 0L)
                - from.getOrDefault("Innodb_buffer_pool_pages_flushed", 0L));
        interval.put("db_pages_read_from_disk", to.getOrDefault("Innodb_buffer_pool_reads", 0L)
                - from.getOrDefault("Innodb_buffer_pool_reads", 0L));
        interval.put("db_dirty_pages_at_end", dirty);
    }

    private static Double perTask(double seconds, long tasks) {
        if (Double.isNaN(seconds) || tasks <= 0) {
            return null;
        }
        return Stats.round(seconds * 1000 / tasks);
    }

    /**
     * Whether the table stops growing at this rate, and whether lateness holds: over the full intervals (the tail
     * left out), rows and p99 of the first against the last, and the net growth per interval over the second half,
     * which a steady state shows once the retention has passed. The table "grows" when that growth is more than
     * {@value #GROWTH_TOLERANCE} of the rows scheduled per interval, else it "holds"; lateness "degrades" when the
     * last p99 is more than {@value #P99_RATIO_LIMIT} times the first and {@value #P99_SLACK_MS} ms more.
     */
    static Map<String, Object> verdict(List<Map<String, Object>> intervals) {
        List<Map<String, Object>> full = new ArrayList<>();
        for (Map<String, Object> interval : intervals) {
            if (!Boolean.TRUE.equals(interval.get("tail"))) {
                full.add(interval);
            }
        }
        Map<String, Object> verdict = new LinkedHashMap<>();
        if (full.size() < 2) {
            verdict.put("table", "unknown: fewer than two full intervals");
            verdict.put("lateness", "unknown: fewer than two full intervals");
            return verdict;
        }
        Map<String, Object> first = full.get(0);
        Map<String, Object> middle = full.get((full.size() - 1) / 2);
        Map<String, Object> last = full.get(full.size() - 1);
        long rowsFirst = number(first.get("rows")).longValue();
        long rowsLast = number(last.get("rows")).longValue();
        int span = number(last.get("interval")).intValue() - number(middle.get("interval")).intValue();
        double growth = (rowsLast - number(middle.get("rows")).doubleValue()) / Math.max(1, span);
        double scheduled = 0;
        for (Map<String, Object> interval : full) {
            scheduled += number(interval.get("scheduled")).doubleValue();
        }
        scheduled /= full.size();
        verdict.put("rows_first", rowsFirst);
        verdict.put("rows_last", rowsLast);
        verdict.put("growth_per_interval", Math.round(growth));
        verdict.put("table", growth > GROWTH_TOLERANCE * scheduled ? "grows" : "holds");
        double p99First = number(first.get("lateness_p99_ms")).doubleValue();
        double p99Last = number(last.get("lateness_p99_ms")).doubleValue();
        verdict.put("p99_first_ms", p99First);
        verdict.put("p99_last_ms", p99Last);
        double ratio = p99First > 0 ? p99Last / p99First : Double.NaN;
        verdict.put("p99_last_vs_first", Stats.round(ratio));
        boolean degrades = p99Last > P99_RATIO_LIMIT * p99First && p99Last - p99First > P99_SLACK_MS;
        verdict.put("lateness", degrades ? "degrades" : "holds");
        return verdict;
    }

    private static Number number(Object value) {
        return value instanceof Number n ? n : Double.NaN;
    }
}
