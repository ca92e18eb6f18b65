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
                new Column("duplicates", "dup"), new Column("lost", "lost")));
        COLUMNS.put("steady", List.of(new Column("rate", "tasks/s"), new Column("tasks", "tasks"),
                new Column("lateness_p50_ms", "p50 ms"), new Column("lateness_p99_ms", "p99 ms"),
                new Column("lateness_p999_ms", "p99.9 ms"), new Column("lateness_max_ms", "max ms"),
                new Column("ceiling_claim_per_s", "raw ceiling/s"), new Column("duplicates", "dup"),
                new Column("lost", "lost")));
        COLUMNS.put("mixed", List.of(new Column("rate", "tasks/s"), new Column("tasks", "tasks"),
                new Column("near_p50_ms", "near p50 ms"), new Column("near_p99_ms", "near p99 ms"),
                new Column("near_max_ms", "near max ms"), new Column("far_p50_ms", "far p50 ms"),
                new Column("far_p99_ms", "far p99 ms"), new Column("far_max_ms", "far max ms"),
                new Column("duplicates", "dup"), new Column("lost", "lost")));
        COLUMNS.put("enqueue", List.of(new Column("tasks", "tasks"),
                new Column("schedule_all_per_s", "scheduleAll/s"), new Column("raw_enqueue_per_s", "raw multi-row/s"),
                new Column("single_per_s", "schedule()/s"), new Column("raw_single_per_s", "raw single/s"),
                new Column("single_call_p50_ms", "call p50 ms"), new Column("single_call_p99_ms", "call p99 ms"),
                new Column("lost", "lost")));
    }

    private static final List<Column> COSTS = List.of(new Column("sql_per_task", "SQL stmts"),
            new Column("commits_per_task", "commits"), new Column("autocommit_switches_per_task", "autocommit sets"),
            new Column("redis_calls_per_task", "Redis calls"), new Column("server_com_select_per_task", "Com_select"),
            new Column("server_com_update_per_task", "Com_update"), new Column("server_com_insert_per_task", "Com_insert"),
            new Column("server_com_commit_per_task", "Com_commit"),
            new Column("server_com_set_option_per_task", "Com_set_option"),
            new Column("server_innodb_data_fsyncs_per_task", "InnoDB fsyncs"),
            new Column("server_redis_commands_per_task", "Redis cmds (server)"));

    private Summary() {
    }

    static String render(List<Map<String, Object>> runs) {
        Map<String, List<Map<String, Object>>> groups = new LinkedHashMap<>();
        for (Map<String, Object> run : runs) {
            groups.computeIfAbsent(key(run), k -> new ArrayList<>()).add(run);
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, List<Column>> workload : COLUMNS.entrySet()) {
            List<List<Map<String, Object>>> rows = new ArrayList<>();
            groups.forEach((key, group) -> {
                if (group.get(0).get("workload").equals(workload.getKey())) {
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
            table(out, COSTS, new ArrayList<>(groups.values()));
        }
        scaling(out, groups);
        return out.toString();
    }

    private static String key(Map<String, Object> run) {
        return run.get("workload") + "|" + run.get("mode") + "|" + run.get("instances") + "|" + run.get("rate");
    }

    private static void table(StringBuilder out, List<Column> columns, List<List<Map<String, Object>>> rows) {
        List<String> header = new ArrayList<>(List.of("workload", "mode", "inst", "runs"));
        columns.forEach(c -> header.add(c.title()));
        out.append("| ").append(String.join(" | ", header)).append(" |\n");
        out.append("|").append("---|".repeat(header.size())).append("\n");
        for (List<Map<String, Object>> group : rows) {
            Map<String, Object> first = group.get(0);
            List<String> cells = new ArrayList<>(List.of(String.valueOf(first.get("workload")),
                    String.valueOf(first.get("mode")), String.valueOf(first.get("instances")),
                    Integer.toString(group.size())));
            for (Column column : columns) {
                cells.add(cell(group, column.key()));
            }
            out.append("| ").append(String.join(" | ", cells)).append(" |\n");
        }
    }

    private static String cell(List<Map<String, Object>> group, String key) {
        List<Double> values = values(group, key);
        if (values.isEmpty()) {
            return "-";
        }
        if (key.equals("duplicates") || key.equals("lost")) {
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

    static double median(List<Map<String, Object>> group, String key) {
        return Stats.median(values(group, key));
    }

    private static List<Double> values(List<Map<String, Object>> group, String key) {
        List<Double> values = new ArrayList<>();
        for (Map<String, Object> run : group) {
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
        if (abs >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static void scaling(StringBuilder out, Map<String, List<Map<String, Object>>> groups) {
        Map<String, Map<Integer, Double>> drains = new LinkedHashMap<>();
        groups.forEach((key, group) -> {
            Map<String, Object> first = group.get(0);
            if (first.get("workload").equals("burst")) {
                drains.computeIfAbsent(String.valueOf(first.get("mode")), m -> new LinkedHashMap<>())
                    .put((Integer) first.get("instances"), median(group, "drain_per_s"));
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
