package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Waiting for a run's tasks, and reading what the table holds of them afterwards. Each query the benchmark makes is
 * counted ({@link #polls()}) so it can be taken out of the server's {@code Com_select}.
 */
final class Waits {

    private final Servers servers;

    private final String database;

    private final String table;

    private int polls;

    Waits(Servers servers, String database, String table) {
        this.servers = servers;
        this.database = database;
        this.table = table;
    }

    int polls() {
        return polls;
    }

    /** Waits until every task started, or nothing started for {@code timeout} after the last due time. */
    void awaitStarts(Recorder recorder, Duration timeout, Map<String, Object> result) throws InterruptedException {
        long lastDue = recorder.plan().lastDueWallMicros();
        long timeoutNanos = timeout.toNanos();
        int seen = -1;
        long lastProgress = System.nanoTime();
        while (recorder.distinct() < recorder.size()) {
            Thread.sleep(10);
            int now = recorder.distinct();
            if (now != seen) {
                seen = now;
                lastProgress = System.nanoTime();
            }
            else if (Recorder.wallMicros() > lastDue && System.nanoTime() - lastProgress > timeoutNanos) {
                BenchRun.log("gave up waiting: " + now + " of " + recorder.size() + " tasks started, no progress for "
                        + timeout);
                result.put("gave_up_waiting", true);
                return;
            }
        }
    }

    /**
     * Waits until every result is written: no row of the run's tasks is left unfinished. (Not "n rows SUCCEEDED":
     * in a soak the purge deletes finished rows while the run goes on.)
     */
    void awaitWritten(Recorder recorder, Duration patience, Map<String, Object> result)
            throws SQLException, InterruptedException {
        long lastStartMicros = 0;
        for (int i = 0; i < recorder.size(); i++) {
            lastStartMicros = Math.max(lastStartMicros, recorder.firstStartWallMicros(i));
        }
        long deadline = System.nanoTime() + patience.toNanos();
        String sql = "SELECT COUNT(*) FROM " + table + " WHERE task_type IN (?, ?) AND status <> 'SUCCEEDED'";
        try (Connection connection = servers.connect(database);
                PreparedStatement ps = connection.prepareStatement(sql)) {
            while (true) {
                ps.setString(1, BenchApp.TYPE);
                ps.setString(2, BenchApp.LIMITED_TYPE); // the burst's second type (--cluster-limit)
                long unfinished;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    unfinished = rs.getLong(1);
                }
                polls++;
                if (unfinished == 0) {
                    long writtenMicros = Recorder.wallMicros();
                    result.put("all_written_after_last_start_ms", lastStartMicros == 0 ? null
                            : Stats.round(Math.max(0, writtenMicros - lastStartMicros) / 1000.0));
                    return;
                }
                if (System.nanoTime() > deadline) {
                    result.put("all_written_after_last_start_ms", null);
                    BenchRun.log(unfinished + " results still unwritten " + patience + " after the last start");
                    return;
                }
                Thread.sleep(20);
            }
        }
    }

    void statuses(Map<String, Object> result) throws SQLException {
        Map<String, Long> statuses = new LinkedHashMap<>();
        String sql = "SELECT status, COUNT(*) FROM " + table + " WHERE task_type IN (?, ?) GROUP BY status "
                + "ORDER BY status";
        try (Connection connection = servers.connect(database);
                PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, BenchApp.TYPE);
            ps.setString(2, BenchApp.LIMITED_TYPE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    statuses.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        result.put("rows_by_status", statuses);
        polls++;
    }

    /** How long to wait for results after the last start: the handlers' own time plus the usual 30 s. */
    static Duration writePatience(Plan plan) {
        int longest = 0;
        for (int work : plan.workMillis) {
            longest = Math.max(longest, work);
        }
        return Duration.ofSeconds(30).plusMillis(longest);
    }
}
