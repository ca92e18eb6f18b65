package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * soak: a steady rate for {@code --duration} on a table preloaded with {@code --preload-finished} old
 * {@code SUCCEEDED} rows and {@code --preload-future} rows due days ahead, with {@code delay.retention.succeeded}
 * at {@code --retention} so the purge works during the run, and the actuator on (gauges refreshing as they do).
 * Every {@code --report-every}: wall-clock lateness, rows in the table, rows purged against tasks completed, claim
 * time per round, database CPU per task, and the time of a gauge refresh, a health check and an endpoint read.
 */
final class SoakWorkload implements Workload {

    private SoakSampler sampler;

    private long initialRows;

    /** The watched totals just before the first count, so purges between it and the origin are accounted. */
    private SqlWatch.Mark beforeCount;

    private AtomicLong scheduled;

    private DatabaseCpu databaseCpu;

    @Override
    public Map<String, String> properties(BenchOptions options) {
        return Map.of("delay.retention.succeeded", options.retention.toMillis() + "ms");
    }

    @Override
    public void prepare(Run run, Map<String, Object> result) throws Exception {
        Preload.schema(run.servers, run.database, run.options.properties);
        BenchRun.log("soak: preloading " + run.options.preloadFinished + " finished and " + run.options.preloadFuture
                + " future rows");
        result.putAll(Preload.load(run.servers, run.database, run.table, run.options.preloadFinished,
                run.options.preloadFuture));
        result.put("retention_s", run.options.retention.toMillis() / 1000.0);
        result.put("report_every_s", run.options.reportEvery.toMillis() / 1000.0);
    }

    @Override
    public void schedule(Run run, Map<String, Object> result) throws Exception {
        databaseCpu = DatabaseCpu.find(run.servers);
        result.put("db_cpu_source", databaseCpu.source());
        beforeCount = SqlWatch.mark();
        initialRows = countRows(run);
        result.put("rows_start", initialRows);
        scheduled = new AtomicLong();
        sampler = new SoakSampler(run, databaseCpu, new Probes(run.instances().get(0)), scheduled);
        long originNanos = System.nanoTime() + PacedWorkload.ORIGIN_AHEAD_MICROS * 1000;
        long originWallMicros = Recorder.wallMicros() + PacedWorkload.ORIGIN_AHEAD_MICROS;
        sampler.start(originNanos, run.options.reportEvery);
        PacedWorkload.produce(run.plan, run.instances().queue(), run.instances().clock(), originNanos,
                originWallMicros, scheduled, result);
    }

    @Override
    public void finish(Run run, Map<String, Object> result) throws Exception {
        sampler.stop();
        List<Intervals.Sample> samples = sampler.samples();
        List<Map<String, Object>> probes = sampler.probeResults();
        SqlWatch.Mark origin = samples.get(0).mark();
        long rowsAtOrigin = initialRows - (origin.purgedRows() - beforeCount.purgedRows());
        List<Map<String, Object>> intervals = Intervals.describe(run.plan, run.recorder, samples, probes,
                rowsAtOrigin, true);
        Map<String, Object> verdict = Intervals.verdict(intervals);
        verdict.forEach((name, value) -> result.put("verdict_" + name, value));
        // tracked (rows at the origin + scheduled - purged) against an exact count; they differ by what a purge
        // statement running during a count deletes, at most a purge batch
        SqlWatch.Mark end = SqlWatch.mark();
        long counted = countRows(run);
        result.put("rows_end_tracked", rowsAtOrigin + scheduled.get() - (end.purgedRows() - origin.purgedRows()));
        result.put("rows_end_counted", counted);
        if (!probes.isEmpty() && probes.get(0) != null) {
            result.put("probes_at_start", probes.get(0));
        }
        if (probes.size() == samples.size() && probes.get(probes.size() - 1) != null) {
            result.put("probes_at_end", probes.get(probes.size() - 1));
        }
        result.put("intervals", intervals);
    }

    @Override
    public void close() {
        if (sampler != null) {
            sampler.close();
        }
    }

    /** Every row of the task table, exactly (seconds on millions of rows; taken outside the intervals' counters). */
    private static long countRows(Run run) throws SQLException {
        try (Connection connection = run.servers.connect(run.database);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + run.table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
