package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SoakTest {

    @Test
    void dueTimesFallInTheirInterval() {
        long[] bounds = { 100, 200, 300 };
        assertThat(Intervals.bucket(bounds, 99, true)).isEqualTo(-1);
        assertThat(Intervals.bucket(bounds, 100, true)).isZero();
        assertThat(Intervals.bucket(bounds, 199, true)).isZero();
        assertThat(Intervals.bucket(bounds, 200, true)).isEqualTo(1);
        assertThat(Intervals.bucket(bounds, 500, true)).isEqualTo(1); // the tail takes the rest
        assertThat(Intervals.bucket(bounds, 500, false)).isEqualTo(-1);
        assertThat(Intervals.bucket(new long[] { 100 }, 150, true)).isEqualTo(-1);
    }

    @Test
    void intervalsCountRowsAndLatenessByDueTime() {
        BenchOptions options = BenchOptions.parse("--workload", "soak", "--rate", "10", "--duration", "2s");
        Plan plan = Plan.build(options, "soak", 10, 1);
        plan.place(0);
        Recorder recorder = new Recorder(plan, 1);
        for (int i = 0; i < plan.size(); i++) {
            long due = plan.dueWallMicros[i];
            // the second half starts 5 ms late on the wall clock, 1 ms on the queue clock
            long late = i < 10 ? 1_000 : 5_000;
            recorder.started(0, i, due / 1000, 1, due + late, due + 1_000);
            plan.queueDueMillis[i] = due / 1000;
        }
        SqlWatch.Mark none = new SqlWatch.Mark(0, 0, 0, 0, 0);
        List<Intervals.Sample> samples = List.of(sample(0, none, 0), sample(2_000_000, mark(1000, 10), 10),
                sample(3_000_000, mark(1500, 20), 20));
        List<Map<String, Object>> probes = new ArrayList<>();
        probes.add(null);
        probes.add(Map.of("at_wall_ms", 1L, "endpoint_ms", 12.5));
        List<Map<String, Object>> intervals = Intervals.describe(plan, recorder, samples, probes, 5000, true);
        assertThat(intervals).hasSize(2);
        Map<String, Object> first = intervals.get(0);
        // due 1.0 .. 1.9 s fall in [0, 2 s); the rest, due from 2 s on, in the tail
        assertThat(first).containsEntry("due", 10L).containsEntry("started", 10)
            .containsEntry("lateness_p99_ms", 1.0).containsEntry("queue_lateness_p99_ms", 1.0)
            .containsEntry("scheduled", 10L).containsEntry("completed", 10L).containsEntry("purged", 1000L)
            .containsEntry("rows", 5000L + 10 - 1000).containsEntry("endpoint_ms", 12.5)
            .doesNotContainKey("at_wall_ms").doesNotContainKey("tail");
        Map<String, Object> tail = intervals.get(1);
        assertThat(tail).containsEntry("tail", true).containsEntry("due", 10L).containsEntry("lateness_p99_ms", 5.0)
            .containsEntry("rows", 5000L + 20 - 1500).containsEntry("rows_change", 10L - 500);
    }

    private static SqlWatch.Mark mark(long purged, long succeeded) {
        return new SqlWatch.Mark(purged, succeeded, 0, 0, 0);
    }

    private static Intervals.Sample sample(long atMicros, SqlWatch.Mark mark, long scheduled) {
        return new Intervals.Sample(atMicros, mark, scheduled, Double.NaN, Double.NaN, new long[] { 0, 0 }, Map.of());
    }

    @Test
    void aTableThatKeepsWhatArrivesGrows() {
        List<Map<String, Object>> intervals = new ArrayList<>();
        long rows = 1_000_000;
        for (int k = 1; k <= 6; k++) {
            rows += 12_000 - 2_000; // 12,000 scheduled, 2,000 purged a minute
            intervals.add(interval(k, rows, 12_000, 3.0));
        }
        Map<String, Object> verdict = Intervals.verdict(intervals);
        assertThat(verdict).containsEntry("table", "grows").containsEntry("growth_per_interval", 10_000L)
            .containsEntry("rows_first", 1_010_000L).containsEntry("lateness", "holds");
    }

    @Test
    void aTableThatPurgesWhatArrivesHoldsAndTheTailIsLeftOut() {
        List<Map<String, Object>> intervals = new ArrayList<>();
        long[] rows = { 1_012_000, 1_020_000, 1_020_300, 1_019_900, 1_020_100 }; // retention passed after 2
        for (int k = 0; k < rows.length; k++) {
            intervals.add(interval(k + 1, rows[k], 12_000, k == rows.length - 1 ? 30.0 : 3.0));
        }
        Map<String, Object> tail = interval(6, 2_000_000, 0, 500);
        tail.put("tail", true);
        intervals.add(tail);
        Map<String, Object> verdict = Intervals.verdict(intervals);
        assertThat(verdict).containsEntry("table", "holds").containsEntry("rows_last", 1_020_100L)
            .containsEntry("lateness", "degrades").containsEntry("p99_last_vs_first", 10.0);
    }

    @Test
    void oneIntervalIsNoVerdict() {
        assertThat(Intervals.verdict(List.of(interval(1, 10, 10, 1))).get("table").toString()).startsWith("unknown");
    }

    private static Map<String, Object> interval(int k, long rows, long scheduled, double p99) {
        Map<String, Object> interval = new LinkedHashMap<>();
        interval.put("interval", k);
        interval.put("rows", rows);
        interval.put("scheduled", scheduled);
        interval.put("lateness_p99_ms", p99);
        return interval;
    }

    @Test
    void databaseCpuFromProcStat() {
        String stat = "3776 (mariadbd) S 1 3776 3776 0 -1 4194560 123 0 0 0 250 150 0 0 20 0 40 0 1000 1 2";
        assertThat(DatabaseCpu.parse(stat, 100)).isEqualTo(4.0);
        assertThat(DatabaseCpu.parse("1 (a b) c) S 1 1 1 0 -1 0 0 0 0 0 7 3 0 0", 10)).isEqualTo(1.0);
    }

    @Test
    void theDatabaseIsLocalOnLoopbackOnly() {
        assertThat(Servers.host("jdbc:mysql://127.0.0.1:3306/")).isEqualTo("127.0.0.1");
        assertThat(Servers.host("jdbc:mariadb://LocalHost/db?x=1")).isEqualTo("localhost");
        assertThat(Servers.host("jdbc:mysql://[::1]:3306/db")).isEqualTo("[::1]");
        assertThat(Servers.host("jdbc:mysql://db.example:3306")).isEqualTo("db.example");
        assertThat(Servers.resolve(Map.of(), Map.of()).databaseIsLocal()).isTrue();
        assertThat(Servers.resolve(Map.of("spring.datasource.url", "jdbc:mysql://db:3306/"), Map.of())
            .databaseIsLocal()).isFalse();
    }
}
