package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;

/**
 * bulk (issue 18): bulk changes by key prefix beside a steady stream of another type. Before the measurement,
 * {@code --bulk-tasks} tasks of {@link BenchApp#BULK_TYPE} are scheduled a day ahead with keys under
 * {@link #PREFIX}, and {@link #KEPT} more under another prefix. Then the steady stream ({@code --rate} tasks/s of
 * {@link BenchApp#TYPE}, each due {@code --lead} later, for {@code --duration}) runs, and at {@code --bulk-at} (a third
 * of the duration by default) a second thread moves every task under the prefix a day further out
 * ({@code rescheduleAll}) and then cancels them ({@code cancelAll}), as an operator or an application would.
 *
 * <p>The stream's lateness is reported per phase, by each task's due time: {@code baseline} (due before the bulk
 * started: the same run without it), {@code reschedule} and {@code cancel} (due while each ran), {@code during} (both),
 * {@code after}; with the ratio of the bulk phase's p99 to the baseline's (the bar: at most 2). Also the bulk
 * operations' durations and counts, and {@code bulk_mismatch}: tasks the operations should have changed and did not,
 * or changed and should not have, or that ran; more than 0 fails the command like a lost task.
 */
final class BulkWorkload implements Workload {

    /** The prefix the bulk operations work on. */
    static final String PREFIX = "acct-7/";

    /** Tasks of the same type under another prefix, which the bulk operations must leave alone. */
    static final String KEPT_PREFIX = "acct-8/";

    static final int KEPT = 1_000;

    private static final int PRELOAD_BATCH = 1_000;

    private Thread bulk;

    private double preloadSeconds;

    /** Wall-clock microseconds: the bulk's start, the end of the reschedule, the end of the cancel (0: not yet). */
    private final AtomicLong rescheduleStart = new AtomicLong();

    private final AtomicLong rescheduleEnd = new AtomicLong();

    private final AtomicLong cancelEnd = new AtomicLong();

    private final AtomicLong rescheduled = new AtomicLong(-1);

    private final AtomicLong cancelled = new AtomicLong(-1);

    private volatile Throwable failure;

    private String deadlockBefore;

    /** The claim rounds' totals at the stream's start, the bulk's start, the reschedule's end and the cancel's end. */
    private final SqlWatch.Mark[] marks = new SqlWatch.Mark[4];

    @Override
    public void warmUp(Run run, AtomicInteger warmups) throws Exception {
        Workload.super.warmUp(run, warmups);
        DelayQueue queue = run.instances().queue();
        Instant due = Instant.now().plus(Duration.ofDays(1));
        long start = System.nanoTime();
        preload(queue, PREFIX, run.options.bulkTasks, due);
        preload(queue, KEPT_PREFIX, KEPT, due);
        preloadSeconds = (System.nanoTime() - start) / 1e9;
        BenchRun.log("bulk: preloaded " + run.options.bulkTasks + " + " + KEPT + " tasks of " + BenchApp.BULK_TYPE
                + " in " + Stats.round(preloadSeconds) + " s");
    }

    private static void preload(DelayQueue queue, String prefix, int count, Instant due) {
        List<TaskRequest> batch = new ArrayList<>(PRELOAD_BATCH);
        for (int i = 0; i < count; i++) {
            batch.add(TaskRequest.of(BenchApp.BULK_TYPE, i).key(prefix + i).dueAt(due).build());
            if (batch.size() == PRELOAD_BATCH || i == count - 1) {
                queue.scheduleAll(batch);
                batch.clear();
            }
        }
    }

    @Override
    public void schedule(Run run, Map<String, Object> result) throws Exception {
        deadlockBefore = lastDeadlock(run);
        marks[0] = SqlWatch.mark();
        long originNanos = System.nanoTime() + PacedWorkload.ORIGIN_AHEAD_MICROS * 1000;
        long originWallMicros = Recorder.wallMicros() + PacedWorkload.ORIGIN_AHEAD_MICROS;
        Duration at = run.options.bulkAt(run.spec.workload());
        DelayQueue queue = run.instances().queue();
        bulk = new Thread(() -> bulk(queue, originNanos + at.toNanos()), "bench-bulk");
        bulk.setDaemon(true);
        bulk.start();
        PacedWorkload.produce(run.plan, queue, run.instances().clock(), originNanos, originWallMicros,
                new AtomicLong(), result);
        bulk.join();
        if (failure != null) {
            throw new IllegalStateException("the bulk operations failed: " + failure, failure);
        }
        long bulkTasks = run.options.bulkTasks;
        result.put("bulk_tasks", bulkTasks);
        result.put("bulk_preload_s", Stats.round(preloadSeconds));
        result.put("bulk_at_s", Stats.round((rescheduleStart.get() - originWallMicros) / 1e6));
        result.put("bulk_rescheduled", rescheduled.get());
        result.put("bulk_reschedule_s", Stats.round((rescheduleEnd.get() - rescheduleStart.get()) / 1e6));
        result.put("bulk_cancelled", cancelled.get());
        result.put("bulk_cancel_s", Stats.round((cancelEnd.get() - rescheduleEnd.get()) / 1e6));
        long lastDue = run.plan.lastDueWallMicros();
        result.put("bulk_outlasted_stream", cancelEnd.get() > lastDue);
    }

    /** At {@code atNanos}: every task under the prefix a day further out, then all of them cancelled. */
    private void bulk(DelayQueue queue, long atNanos) {
        try {
            long wait;
            while ((wait = atNanos - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            marks[1] = SqlWatch.mark();
            rescheduleStart.set(Recorder.wallMicros());
            rescheduled.set(queue.rescheduleAll(BenchApp.BULK_TYPE, PREFIX, Instant.now().plus(Duration.ofDays(2))));
            rescheduleEnd.set(Recorder.wallMicros());
            marks[2] = SqlWatch.mark();
            cancelled.set(queue.cancelAll(BenchApp.BULK_TYPE, PREFIX));
            cancelEnd.set(Recorder.wallMicros());
            marks[3] = SqlWatch.mark();
            BenchRun.log("bulk: rescheduled " + rescheduled.get() + " in "
                    + Stats.round((rescheduleEnd.get() - rescheduleStart.get()) / 1e6) + " s, cancelled "
                    + cancelled.get() + " in " + Stats.round((cancelEnd.get() - rescheduleEnd.get()) / 1e6) + " s");
        }
        catch (RuntimeException | Error ex) {
            failure = ex;
        }
    }

    @Override
    public void finish(Run run, Map<String, Object> result) throws Exception {
        phases(run, result);
        claimRounds(result);
        Map<String, Long> underPrefix = statuses(run, PREFIX);
        Map<String, Long> kept = statuses(run, KEPT_PREFIX);
        result.put("bulk_rows_by_status", underPrefix);
        result.put("kept_rows_by_status", kept);
        long n = run.options.bulkTasks;
        long mismatch = Math.abs(n - rescheduled.get()) + Math.abs(n - cancelled.get())
                + (n - underPrefix.getOrDefault("CANCELLED", 0L)) + (KEPT - kept.getOrDefault("SCHEDULED", 0L))
                + run.recorder.bulkStarts();
        result.put("bulk_started", run.recorder.bulkStarts());
        result.put("bulk_mismatch", mismatch);
        String deadlock = lastDeadlock(run);
        if (!deadlock.isEmpty() && !deadlock.equals(deadlockBefore)) {
            // the server's latest one, which may be another client's: its statements say whose
            result.put("last_deadlock", deadlock);
        }
    }

    /**
     * The server's latest detected deadlock (InnoDB keeps one), cut to its time and statements; {@code ""} when the
     * server has none or does not say.
     */
    private static String lastDeadlock(Run run) {
        try (Connection connection = run.servers.connect(run.database);
                PreparedStatement ps = connection.prepareStatement("SHOW ENGINE INNODB STATUS");
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return "";
            }
            String status = rs.getString("Status");
            int start = status.indexOf("LATEST DETECTED DEADLOCK");
            if (start < 0) {
                return "";
            }
            int end = status.indexOf("\n------------\nTRANSACTIONS", start);
            StringBuilder out = new StringBuilder();
            for (String line : status.substring(start, end < 0 ? status.length() : end).split("\n")) {
                String trimmed = line.trim();
                if (trimmed.matches("\\d{4}-\\d\\d-\\d\\d .*") || trimmed.startsWith("UPDATE")
                        || trimmed.startsWith("SELECT") || trimmed.startsWith("INSERT") || trimmed.startsWith("DELETE")
                        || trimmed.startsWith("*** WE ROLL BACK")) {
                    out.append(out.length() == 0 ? "" : " | ")
                        .append(trimmed, 0, Math.min(trimmed.length(), 160));
                }
            }
            return out.toString();
        }
        catch (SQLException ex) {
            return "";
        }
    }

    @Override
    public void close() {
        if (bulk != null) {
            bulk.interrupt();
        }
    }

    /**
     * The stream's lateness by phase, each task by its due time against the bulk's start and ends: the tasks due while
     * an operation ran are the ones it could delay (a task due later was claimed after it).
     */
    private void phases(Run run, Map<String, Object> result) {
        Plan plan = run.plan;
        Recorder recorder = run.recorder;
        Map<String, List<Double>> phases = new LinkedHashMap<>();
        for (String phase : List.of("baseline", "reschedule", "cancel", "during", "after")) {
            phases.put(phase, new ArrayList<>());
        }
        for (int i = 0; i < recorder.size(); i++) {
            if (recorder.starts(i) == 0) {
                continue;
            }
            long due = plan.dueWallMicros[i];
            double late = (recorder.firstStartWallMicros(i) - due) / 1000.0;
            if (due < rescheduleStart.get()) {
                phases.get("baseline").add(late);
            }
            else if (due <= cancelEnd.get()) {
                phases.get(due <= rescheduleEnd.get() ? "reschedule" : "cancel").add(late);
                phases.get("during").add(late);
            }
            else {
                phases.get("after").add(late);
            }
        }
        phases.forEach((phase, late) -> {
            result.put(phase + "_tasks", late.size());
            Stats.percentiles(result, phase + "_", Stats.sorted(late), false);
        });
        double base = Stats.percentile(Stats.sorted(phases.get("baseline")), 0.99);
        double during = Stats.percentile(Stats.sorted(phases.get("during")), 0.99);
        result.put("during_vs_baseline_p99", Stats.round(during / base));
    }

    /**
     * The consumers' claim rounds (from the locking read to the commit) in each phase, by when they ran: whether the
     * bulk makes the database slower for them, or only takes the CPU from the rest of their path.
     */
    private void claimRounds(Map<String, Object> result) {
        SqlWatch.Mark end = SqlWatch.mark();
        String[] names = { "baseline", "reschedule", "cancel", "after" };
        SqlWatch.Mark[] bounds = { marks[0], marks[1], marks[2], marks[3], end };
        Map<String, Object> phases = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            if (bounds[i] == null || bounds[i + 1] == null) {
                continue;
            }
            Map<String, Object> window = new LinkedHashMap<>();
            SqlWatch.describe(SqlWatch.between(bounds[i], bounds[i + 1]), window);
            Map<String, Object> kept = new LinkedHashMap<>();
            for (String key : List.of("claim_rounds", "claim_round_mean_ms", "claim_round_p50_ms",
                    "claim_round_p99_ms", "claim_round_max_ms", "claimed_per_round")) {
                kept.put(key, window.get(key));
            }
            phases.put(names[i], kept);
        }
        result.put("claim_rounds_by_phase", phases);
    }

    /** The bulk type's rows under a prefix, by status. */
    private static Map<String, Long> statuses(Run run, String prefix) throws SQLException {
        Map<String, Long> statuses = new LinkedHashMap<>();
        String sql = "SELECT status, COUNT(*) FROM " + run.table + " WHERE task_type = ? AND task_key LIKE ? "
                + "GROUP BY status ORDER BY status";
        try (Connection connection = run.servers.connect(run.database);
                PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, BenchApp.BULK_TYPE);
            ps.setString(2, prefix + "%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    statuses.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return statuses;
    }
}
