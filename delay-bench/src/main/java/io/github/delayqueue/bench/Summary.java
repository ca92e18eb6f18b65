package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables printed after the runs: per combination the median of its runs with min and max, one table per
 * workload, then the per-task cost, then the scaling from one instance to more. Markdown, to paste into the README.
 */
final class Summary {

    private record Column(String key, String title) {
    }

    private static final Map<String, List<Column>> COLUMNS = new LinkedHashMap<>();

    static {
        COLUMNS.put("burst", List.of(new Column("tasks", "tasks"), new Column("enqueue_per_s", "enqueue/s"),
                new Column("drain_per_s", "drain/s"), new Column("ceiling_claim_per_s", "raw ceiling/s"),
                new Column("drain_vs_ceiling", "drain / ceiling"), new Column("lateness_p50_ms", "p50 ms"),
                new Column("lateness_p99_ms", "p99 ms"), new Column("lateness_max_ms", "max ms"),
                new Column("queue_lateness_p50_ms", "queue p50 ms"),
                new Column("queue_lateness_p99_ms", "queue p99 ms"),
                new Column("duplicates", "dup"), new Column("lost", "lost"), new Column("started_early", "early")));
        COLUMNS.put("steady", List.of(new Column("rate", "tasks/s"), new Column("tasks", "tasks"),
                new Column("lateness_p50_ms", "p50 ms"), new Column("lateness_p99_ms", "p99 ms"),
                new Column("lateness_p999_ms", "p99.9 ms"), new Column("lateness_max_ms", "max ms"),
                new Column("queue_lateness_p50_ms", "queue p50 ms"),
                new Column("queue_lateness_p99_ms", "queue p99 ms"),
                new Column("ceiling_claim_per_s", "raw ceiling/s"), new Column("duplicates", "dup"),
                new Column("lost", "lost"), new Column("started_early", "early")));
        COLUMNS.put("mixed", List.of(new Column("rate", "tasks/s"), new Column("tasks", "tasks"),
                new Column("near_p50_ms", "near p50 ms"), new Column("near_p99_ms", "near p99 ms"),
                new Column("near_max_ms", "near max ms"), new Column("far_p50_ms", "far p50 ms"),
                new Column("far_p99_ms", "far p99 ms"), new Column("far_max_ms", "far max ms"),
                new Column("queue_near_p99_ms", "queue near p99 ms"),
                new Column("queue_far_p99_ms", "queue far p99 ms"),
                new Column("duplicates", "dup"), new Column("lost", "lost"), new Column("started_early", "early")));
        COLUMNS.put("enqueue", List.of(new Column("enqueue_threads", "threads"), new Column("jvm", "jvm"),
                new Column("tx", "tx"), new Column("keyed", "keyed"), new Column("tasks", "tasks"),
                new Column("single_per_s", "schedule()/s"), new Column("raw_jvm", "raw jvm"),
                new Column("raw_single_per_s", "raw/s"), new Column("single_vs_raw", "vs raw"),
                new Column("raw_cold_single_per_s", "raw cold/s"), new Column("single_vs_raw_cold", "vs raw cold"),
                new Column("raw_tx_per_s", "raw tx/s"), new Column("single_vs_raw_tx", "vs raw tx"),
                new Column("raw_app_tx_per_s", "raw app tx/s"), new Column("single_vs_raw_app_tx", "vs raw app tx"),
                new Column("calls_overlapped_drain", "beside drain"), new Column("single_call_p50_ms", "call p50 ms"),
                new Column("single_call_p99_ms", "call p99 ms"), new Column("single_call_max_ms", "call max ms"),
                new Column("lateness_p50_ms", "p50 ms"), new Column("lateness_p99_ms", "p99 ms"),
                new Column("lateness_max_ms", "max ms"),
                new Column("enqueue_done_after_due_ms", "calls done after due ms"),
                new Column("last_start_after_due_ms", "last start after due ms"),
                new Column("schedule_all_per_s", "scheduleAll/s"), new Column("raw_enqueue_per_s", "raw multi-row/s"),
                new Column("duplicates", "dup"), new Column("lost", "lost"), new Column("started_early", "early")));
        COLUMNS.put("mixed-durations", List.of(new Column("tasks", "tasks"), new Column("slow_tasks", "slow"),
                new Column("fast_p50_ms", "fast p50 ms"), new Column("fast_p99_ms", "fast p99 ms"),
                new Column("fast_max_ms", "fast max ms"), new Column("queue_fast_p99_ms", "queue fast p99 ms"),
                new Column("slow_p99_ms", "slow p99 ms"), new Column("duplicates", "dup"), new Column("lost", "lost"),
                new Column("started_early", "early")));
        COLUMNS.put("soak", List.of(new Column("rate", "tasks/s"), new Column("tasks", "tasks"),
                new Column("rows_start", "rows at start"), new Column("verdict_rows_first", "rows 1st interval"),
                new Column("verdict_rows_last", "rows last interval"),
                new Column("verdict_growth_per_interval", "growth / interval"),
                new Column("verdict_p99_first_ms", "p99 1st ms"), new Column("verdict_p99_last_ms", "p99 last ms"),
                new Column("purged_rows", "purged"), new Column("claim_round_p99_ms", "claim p99 ms"),
                new Column("duplicates", "dup"), new Column("lost", "lost"), new Column("started_early", "early")));
        COLUMNS.put("bulk", List.of(new Column("rate", "tasks/s"), new Column("bulk_tasks", "bulk tasks"),
                new Column("baseline_p50_ms", "baseline p50 ms"), new Column("baseline_p99_ms", "baseline p99 ms"),
                new Column("during_p50_ms", "during p50 ms"), new Column("during_p99_ms", "during p99 ms"),
                new Column("during_max_ms", "during max ms"),
                new Column("during_vs_baseline_p99", "p99 during / baseline"),
                new Column("bulk_reschedule_s", "reschedule s"), new Column("bulk_cancel_s", "cancel s"),
                new Column("bulk_mismatch", "mismatch"), new Column("duplicates", "dup"), new Column("lost", "lost"),
                new Column("started_early", "early")));
    }

    /** Per soak run, per interval. */
    private static final List<Column> INTERVAL = List.of(new Column("interval", "#"), new Column("to_s", "until s"),
            new Column("due", "due"), new Column("lateness_p50_ms", "p50 ms"), new Column("lateness_p99_ms", "p99 ms"),
            new Column("queue_lateness_p99_ms", "queue p99 ms"), new Column("rows", "rows"),
            new Column("scheduled", "scheduled"), new Column("completed", "completed"), new Column("purged", "purged"),
            new Column("claim_round_mean_ms", "claim ms"), new Column("claim_round_p99_ms", "claim p99 ms"),
            new Column("purge_max_ms", "purge max ms"), new Column("db_cpu_ms_per_task", "db cpu ms/task"),
            new Column("machine_busy_pct", "busy %"), new Column("db_pages_flushed", "pages flushed"),
            new Column("db_pages_read_from_disk", "pages read"), new Column("db_dirty_pages_at_end", "dirty at end"),
            new Column("gauges_refresh_ms", "gauges ms"), new Column("health_ms", "health ms"),
            new Column("endpoint_ms", "endpoint ms"));

    private static final List<Column> COSTS = List.of(new Column("sql_per_task", "SQL stmts"),
            new Column("commits_per_task", "commits"), new Column("autocommit_switches_per_task", "autocommit sets"),
            new Column("redis_calls_per_task", "Redis calls"), new Column("server_com_select_per_task", "Com_select"),
            new Column("server_com_update_per_task", "Com_update"),
            new Column("server_com_insert_per_task", "Com_insert"),
            new Column("server_com_commit_per_task", "Com_commit"),
            new Column("server_com_set_option_per_task", "Com_set_option"),
            new Column("server_innodb_data_fsyncs_per_task", "InnoDB fsyncs"),
            new Column("server_redis_commands_per_task", "Redis cmds (server)"));

    /** What tells the enqueue workload's combinations apart, before their per-task costs. */
    private static final List<Column> ENQUEUE_LABELS = List.of(new Column("enqueue_threads", "threads"),
            new Column("jvm", "jvm"), new Column("tx", "tx"), new Column("keyed", "keyed"));

    private Summary() {
    }

    static String render(List<RunResult> runs) {
        Map<String, List<RunResult>> groups = new LinkedHashMap<>();
        for (RunResult run : runs) {
            groups.computeIfAbsent(run.combination(), k -> new ArrayList<>()).add(run);
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, List<Column>> workload : COLUMNS.entrySet()) {
            List<List<RunResult>> rows = new ArrayList<>();
            groups.forEach((key, group) -> {
                if (group.get(0).workload().equals(workload.getKey())) {
                    rows.add(group);
                }
            });
            if (rows.isEmpty()) {
                continue;
            }
            out.append("\n").append(workload.getKey()).append(" (median of runs, min-max in brackets)\n\n");
            table(out, workload.getValue(), rows);
        }
        if (!groups.isEmpty()) {
            out.append("\nper-task cost (median; client: sent by this process; server: counted by MariaDB/Redis)\n\n");
            List<Column> costs = COSTS;
            if (groups.values().stream().anyMatch(group -> group.get(0).workload().equals("enqueue"))) {
                costs = new ArrayList<>(ENQUEUE_LABELS); // else the enqueue rows of one mode look alike
                costs.addAll(COSTS);
            }
            table(out, costs, new ArrayList<>(groups.values()));
        }
        scaling(out, groups);
        enqueueTargets(out, groups);
        prefetch(out, groups);
        soak(out, runs);
        return out.toString();
    }

    private static void table(StringBuilder out, List<Column> columns, List<List<RunResult>> rows) {
        boolean variants = rows.stream().anyMatch(group -> group.get(0).hasVariant());
        List<String> header = new ArrayList<>(List.of("workload", "mode", "inst", "runs"));
        if (variants) {
            header.add(3, "variant");
        }
        columns.forEach(c -> header.add(c.title()));
        out.append("| ").append(String.join(" | ", header)).append(" |\n");
        out.append("|").append("---|".repeat(header.size())).append("\n");
        for (List<RunResult> group : rows) {
            RunResult first = group.get(0);
            List<String> cells = new ArrayList<>(List.of(first.workload(), first.modeLabel(),
                    String.valueOf(first.get("instances")), Integer.toString(group.size())));
            if (variants) {
                cells.add(3, first.variant());
            }
            for (Column column : columns) {
                cells.add(cell(group, column.key()));
            }
            out.append("| ").append(String.join(" | ", cells)).append(" |\n");
        }
    }

    private static String cell(List<RunResult> group, String key) {
        List<Double> values = values(group, key);
        if (values.isEmpty()) {
            Object text = group.get(0).get(key); // a label of the group, such as enqueue's jvm and tx
            if (text instanceof Boolean) {
                return flags(group, key);
            }
            return text instanceof String label ? label : "-";
        }
        if (key.equals("duplicates") || key.equals("lost") || key.equals("started_early")) {
            return format(values.stream().mapToDouble(Double::doubleValue).sum()); // any is too many
        }
        double median = Stats.median(values);
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        if (values.size() == 1 || min == max) {
            return format(median);
        }
        return format(median) + " (" + format(min) + "-" + format(max) + ")";
    }

    /** A yes-or-no figure: its value when every run has the same, else how many runs said true. */
    private static String flags(List<RunResult> group, String key) {
        long yes = group.stream().filter(run -> Boolean.TRUE.equals(run.get(key))).count();
        long no = group.stream().filter(run -> Boolean.FALSE.equals(run.get(key))).count();
        if (no == 0 || yes == 0) {
            return Boolean.toString(yes > 0);
        }
        return yes + " of " + (yes + no);
    }

    static double median(List<RunResult> group, String key) {
        return Stats.median(values(group, key));
    }

    private static List<Double> values(List<RunResult> group, String key) {
        List<Double> values = new ArrayList<>();
        for (RunResult run : group) {
            if (run.get(key) instanceof Number number && !Double.isNaN(number.doubleValue())) {
                values.add(number.doubleValue());
            }
        }
        return values;
    }

    static String format(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        double abs = Math.abs(value);
        if (abs >= 1000 || value == Math.rint(value)) { // counts print whole
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /**
     * enqueue: the single-call targets, reported, never asserted: from 16 threads outside transactions at least
     * 10,000 calls/s, at least 90 % of the raw loop, a call's p99 at most 5 ms. One line per mode and JVM variant.
     */
    static void enqueueTargets(StringBuilder out, Map<String, List<RunResult>> groups) {
        StringBuilder lines = new StringBuilder();
        groups.forEach((key, group) -> {
            RunResult first = group.get(0);
            if (!first.workload().equals("enqueue") || !Integer.valueOf(16).equals(first.enqueueThreads())
                    || !BenchOptions.TX_NONE.equals(first.tx())) {
                return;
            }
            double rate = median(group, "single_per_s");
            double vsRaw = median(group, "single_vs_raw");
            double p99 = median(group, "single_call_p99_ms");
            lines.append("- ").append(first.modeLabel()).append(" x").append(first.get("instances")).append(", ")
                .append(first.jvm()).append(" JVM").append(first.keyed() ? ", keyed" : "").append(": ")
                .append(format(rate)).append(" calls/s (>= 10,000: ")
                .append(verdict(rate, 10_000, true)).append("), ").append(format(vsRaw))
                .append(" of the warm raw loop (>= 0.90: ").append(verdict(vsRaw, 0.90, true)).append("), call p99 ")
                .append(format(p99)).append(" ms (<= 5 ms: ").append(verdict(p99, 5, false)).append(")\n");
        });
        if (!lines.isEmpty()) {
            out.append("\nenqueue targets (medians; 16 threads, outside transactions; reported, never asserted)\n\n")
                .append(lines);
        }
    }

    static String verdict(double value, double target, boolean atLeast) {
        if (Double.isNaN(value)) {
            return "not measured";
        }
        return (atLeast ? value >= target : value <= target) ? "met" : "missed";
    }

    /** mixed-durations: p99 of the fast tasks with the starter's prefetch against none, per mode and instances. */
    private static void prefetch(StringBuilder out, Map<String, List<RunResult>> groups) {
        Map<String, double[]> pairs = new LinkedHashMap<>();
        groups.forEach((key, group) -> {
            RunResult first = group.get(0);
            if (first.workload().equals("mixed-durations")) {
                double[] pair = pairs.computeIfAbsent(first.modeLabel() + " x" + first.get("instances"),
                        k -> new double[] { Double.NaN, Double.NaN });
                pair[RunSpec.PREFETCH_ZERO.equals(first.get("variant")) ? 1 : 0] = median(group, "fast_p99_ms");
            }
        });
        StringBuilder lines = new StringBuilder();
        pairs.forEach((label, pair) -> lines.append("- ").append(label).append(": fast tasks' p99 ")
            .append(format(pair[0])).append(" ms with the starter's prefetch, ").append(format(pair[1]))
            .append(" ms with prefetch 0: ").append(ratio(pair[0], pair[1])).append("\n"));
        if (!lines.isEmpty()) {
            out.append("\nmixed-durations, prefetch (medians; the ratio is default / prefetch 0)\n\n").append(lines);
        }
    }

    private static String ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) || b <= 0 ? "-" : String.format(Locale.ROOT, "%.1fx", a / b);
    }

    /**
     * soak: the verdict of each run, the highest rate whose table held, and each run's intervals.
     */
    private static void soak(StringBuilder out, List<RunResult> runs) {
        Map<String, Integer> highest = new LinkedHashMap<>();
        StringBuilder verdicts = new StringBuilder();
        StringBuilder intervals = new StringBuilder();
        for (RunResult run : runs) {
            if (!run.workload().equals("soak")) {
                continue;
            }
            String label = run.modeLabel() + " x" + run.get("instances") + " " + run.get("rate") + "/s #"
                    + run.repetition();
            verdicts.append("- ").append(label).append(": table ").append(run.get("verdict_table"))
                .append(", lateness ").append(run.get("verdict_lateness")).append(" (p99 last / first ")
                .append(run.get("verdict_p99_last_vs_first")).append(")\n");
            String group = run.modeLabel() + " x" + run.get("instances");
            highest.putIfAbsent(group, null);
            if ("holds".equals(run.get("verdict_table")) && run.get("rate") instanceof Integer rate) {
                highest.merge(group, rate, Math::max);
            }
            if (run.get("intervals") instanceof List<?> list && !list.isEmpty()) {
                intervals.append("\nsoak ").append(label).append(", per interval of ").append(run.get("report_every_s"))
                    .append(" s (db cpu: ").append(run.get("db_cpu_source")).append(")\n\n");
                intervals.append("| ");
                INTERVAL.forEach(c -> intervals.append(c.title()).append(" | "));
                intervals.append("\n|").append("---|".repeat(INTERVAL.size())).append("\n");
                for (Object interval : list) {
                    Map<?, ?> row = (Map<?, ?>) interval;
                    intervals.append("| ");
                    for (Column column : INTERVAL) {
                        Object value = row.get(column.key());
                        String cell = value instanceof Number n ? format(n.doubleValue())
                                : value == null ? "-" : String.valueOf(value);
                        if (column.key().equals("interval") && Boolean.TRUE.equals(row.get("tail"))) {
                            cell += " (tail)";
                        }
                        intervals.append(cell).append(" | ");
                    }
                    intervals.append("\n");
                }
            }
        }
        if (verdicts.isEmpty()) {
            return;
        }
        out.append("\nsoak verdicts (table: rows grow or hold over the second half; lateness: last p99 against the "
                + "first)\n\n").append(verdicts);
        highest.forEach((group, rate) -> out.append("- ").append(group).append(": highest rate whose table held: ")
            .append(rate == null ? "none of those run" : rate + "/s").append("\n"));
        out.append(intervals);
    }

    private static void scaling(StringBuilder out, Map<String, List<RunResult>> groups) {
        Map<String, Map<Integer, Double>> drains = new LinkedHashMap<>();
        groups.forEach((key, group) -> {
            RunResult first = group.get(0);
            if (first.workload().equals("burst")) {
                drains.computeIfAbsent(first.mode(), m -> new LinkedHashMap<>())
                    .put(first.instances(), median(group, "drain_per_s"));
            }
        });
        StringBuilder lines = new StringBuilder();
        drains.forEach((mode, byInstances) -> {
            Double one = byInstances.get(1);
            byInstances.forEach((count, drain) -> {
                if (count > 1 && one != null && one > 0) {
                    lines.append("- ").append(mode).append(": ").append(count).append(" instances drain ")
                        .append(String.format(Locale.ROOT, "%.2f", drain / one)).append("x one instance (")
                        .append(format(drain)).append(" vs ").append(format(one)).append(" tasks/s)\n");
                }
            });
        });
        if (!lines.isEmpty()) {
            out.append("\nscaling (burst drain, medians)\n\n").append(lines);
        }
    }
}
