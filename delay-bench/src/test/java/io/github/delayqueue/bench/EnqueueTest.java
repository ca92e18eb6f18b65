package io.github.delayqueue.bench;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnqueueTest {

    @Test
    void threadsJvmAndTransactionAreDimensionsOfEnqueueOnly() {
        BenchOptions options = BenchOptions.parse("--workload", "burst,enqueue", "--mode", "hybrid,jdbc",
                "--enqueue-threads", "4,16", "--jvm", "fresh,warm", "--tx", "none,business-row", "--repeat", "1");
        List<RunSpec> runs = RunSpec.expand(options);
        assertThat(runs).hasSize(2 + 2 * 2 * 2 * 2);
        assertThat(runs.get(0).describe()).isEqualTo("burst hybrid x1 #1");
        assertThat(runs.get(0).callers()).isZero();
        assertThat(runs.get(0).fresh()).isFalse();
        assertThat(runs).filteredOn(r -> r.workload().equals("enqueue")).extracting(RunSpec::describe)
            .startsWith("enqueue hybrid x1 4 threads fresh tx none #1",
                    "enqueue hybrid x1 4 threads fresh tx business-row #1",
                    "enqueue hybrid x1 4 threads warm tx none #1");
        RunSpec freshRow = runs.get(3);
        assertThat(freshRow.fresh()).isTrue();
        assertThat(freshRow.businessRow()).isTrue();
    }

    @Test
    void keysAndOneThreadAreDimensionsOfEnqueueToo() {
        BenchOptions options = BenchOptions.parse("--workload", "enqueue,burst", "--mode", "jdbc", "--enqueue-threads",
                "1,4,16", "--keyed", "false,true", "--repeat", "1");
        List<RunSpec> runs = RunSpec.expand(options);
        assertThat(runs).hasSize(3 * 2 + 1);
        assertThat(runs).extracting(RunSpec::describe).startsWith("enqueue jdbc x1 1 threads warm tx none #1",
                "enqueue jdbc x1 1 threads warm tx none keyed #1", "enqueue jdbc x1 4 threads warm tx none #1")
            .endsWith("burst jdbc x1 #1");
        assertThat(runs.get(1).keyed()).isTrue();
        assertThat(runs.get(runs.size() - 1).keyed()).isFalse();
    }

    @Test
    void enqueueDefaultsAndBadValues() {
        BenchOptions options = BenchOptions.parse("--workload", "enqueue", "--tasks", "3000");
        assertThat(options.enqueueThreads).containsExactly(16);
        assertThat(options.jvms).containsExactly("warm");
        assertThat(options.txs).containsExactly("none");
        assertThat(options.keyeds).containsExactly(false);
        assertThat(options.lead("enqueue")).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.lead("burst")).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.warmup("enqueue")).isEqualTo(3000); // as many warm-up calls as measured ones
        assertThat(options.warmup("burst")).isEqualTo(1000);
        assertThat(BenchOptions.parse("--warmup", "50").warmup("enqueue")).isEqualTo(50);
        assertThat(options.isFreshChild()).isFalse();
        assertThat(options.coldRaw).isFalse();
        assertThat(BenchOptions.parse("--cold-raw", "true").coldRaw).isTrue();
        assertThatThrownBy(() -> BenchOptions.parse("--cold-raw", "cold")).hasMessageContaining("--cold-raw");
        assertThatThrownBy(() -> BenchOptions.parse("--jvm", "hot")).hasMessageContaining("--jvm");
        assertThatThrownBy(() -> BenchOptions.parse("--tx", "required")).hasMessageContaining("--tx");
        assertThatThrownBy(() -> BenchOptions.parse("--keyed", "maybe")).hasMessageContaining("--keyed");
        assertThatThrownBy(() -> BenchOptions.parse("--enqueue-threads", "4,0"))
            .hasMessageContaining("--enqueue-threads");
    }

    @Test
    void theFreshChildRunsExactlyItsRunWhateverTheCommandLineListed() {
        String[] args = { "--workload", "burst,enqueue", "--mode", "hybrid,jdbc", "--enqueue-threads", "4,16", "--jvm",
                "fresh,warm", "--tx", "none,business-row", "--keyed", "false,true", "--repeat", "3", "--tasks", "500",
                "--out", "x.jsonl" };
        RunSpec spec = new RunSpec("enqueue", "jdbc", 1, 0, "single", "", 2, 16, "fresh", "business-row", true);
        List<String> command = FreshJvm.command("/jdk/bin/java",
                List.of("-Xmx1g", "-agentlib:jdwp=transport=dt_socket"), "delay-bench/target/delay-bench.jar", args,
                spec);
        assertThat(command).startsWith("/jdk/bin/java", "-Xmx1g", "-jar", "delay-bench/target/delay-bench.jar")
            .doesNotContain("-agentlib:jdwp=transport=dt_socket");
        BenchOptions child = BenchOptions.parse(command.subList(4, command.size()).toArray(String[]::new));
        assertThat(child.isFreshChild()).isTrue();
        assertThat(child.tasks("enqueue")).isEqualTo(500); // the given options still apply
        assertThat(RunSpec.expand(child)).containsExactly(spec);
        assertThat(child.coldRawChild).isFalse();

        List<String> coldRaw = new ArrayList<>(command.subList(4, command.size()));
        coldRaw.addAll(FreshJvm.COLD_RAW_CHILD);
        BenchOptions coldChild = BenchOptions.parse(coldRaw.toArray(String[]::new));
        assertThat(coldChild.coldRawChild).isTrue();
        assertThat(coldChild.isFreshChild()).isTrue();
        assertThat(RunSpec.expand(coldChild)).containsExactly(spec);

        List<String> fromClasses = FreshJvm.command("java", List.of(), "a.jar" + File.pathSeparator + "classes",
                args, spec);
        assertThat(fromClasses).startsWith("java", "-cp", "a.jar" + File.pathSeparator + "classes",
                BenchMain.class.getName());
    }

    @Test
    void callsAreTimedOnEachThreadAndMerged() throws Exception {
        Map<Integer, String> seen = new ConcurrentHashMap<>();
        List<Integer> after = java.util.Collections.synchronizedList(new ArrayList<>());
        boolean[] started = new boolean[1];
        Calls.Times times = Calls.run("test-calls", 400, 4, thread -> new Calls.Caller() {
            @Override
            public void call(int slot) {
                seen.put(slot, Thread.currentThread().getName());
            }

            @Override
            public void after(int slot) {
                after.add(slot);
            }
        }, () -> started[0] = true);
        assertThat(started[0]).isTrue();
        assertThat(seen).hasSize(400);
        assertThat(after).hasSize(400);
        assertThat(times.calls()).isEqualTo(400);
        assertThat(times.endNanos()).isGreaterThanOrEqualTo(times.startNanos());
        assertThat(times.perSecond()).isPositive();

        assertThatThrownBy(() -> Calls.run("failing", 10, 2, thread -> slot -> {
            throw new IllegalStateException("boom");
        })).hasMessageContaining("failing failed").hasMessageContaining("boom");
    }

    @Test
    void latencyPercentilesOfMergedThreads() {
        long[] merged = Calls.merge(new long[][] { { 3_000_000, 1_000_000 }, { 2_000_000 }, {}, null });
        assertThat(merged).containsExactly(1_000_000, 2_000_000, 3_000_000);
        Calls.Times times = new Calls.Times(0, 1_000_000_000L, merged);
        Map<String, Object> result = new LinkedHashMap<>();
        times.describe("calls_per_s", "call_", result);
        assertThat(result).containsEntry("calls_per_s", 3.0).containsEntry("call_p50_ms", 2.0)
            .containsEntry("call_p99_ms", 3.0).containsEntry("call_max_ms", 3.0).containsEntry("call_mean_ms", 2.0);
    }

    @Test
    void theBurstOfCallsCountsItsLatenessFromTheDueInstantAndFromEachCall() {
        Plan plan = Plan.build(BenchOptions.parse("--workload", "enqueue", "--tasks", "3", "--lead", "1s"), "enqueue",
                0, 1);
        assertThat(plan.size()).isEqualTo(3);
        plan.place(1_000_000_000L);
        long due = plan.dueWallMicros[0];
        assertThat(plan.dueWallMicros).containsOnly(1_000_000_000L + 1_000_000);
        Recorder recorder = new Recorder(plan, 1);
        // slot 0: called before due, starts 2 ms late; slot 1: its call returned 10 ms after due, started 4 ms later;
        // slot 2: called just before due, its stored due unknown
        plan.calledWallMicros[0] = due - 500_000;
        plan.queueDueMillis[0] = due / 1000;
        recorder.started(0, 0, due / 1000, 1, due + 2_000, due + 2_000);
        plan.calledWallMicros[1] = due + 10_000;
        plan.queueDueMillis[1] = Plan.DUE_UNCHECKED;
        recorder.started(0, 1, due / 1000 + 10, 1, due + 14_000, due + 14_000);
        plan.calledWallMicros[2] = due - 100;
        plan.queueDueMillis[2] = due / 1000 + 7; // the library stored another due time: counted
        recorder.started(0, 2, due / 1000, 1, due + 1_000, due + 1_000);
        Map<String, Object> result = new LinkedHashMap<>();
        Outcomes.describe(recorder, 1, result);
        assertThat(result).containsEntry("due_unchecked", 1L).containsEntry("due_mismatch", 1L)
            .containsEntry("last_start_after_due_ms", 14.0).containsEntry("first_start_after_due_ms", 1.0)
            .containsEntry("lateness_max_ms", 14.0).containsEntry("lateness_after_call_max_ms", 4.0)
            .containsEntry("lateness_after_call_p50_ms", 2.0).doesNotContainKey("drain_per_s");
        assertThat(new RunResult(result).failed()).isFalse();
    }

    @Test
    void rawLoopsMeasuredAfterOnlyAreReportedAsTheyAre() {
        Map<String, Object> after = Map.of("raw_single_per_s", 2000.0, "raw_tx_per_s", 1000.0,
                "raw_enqueue_per_s", 40_000.0);
        Map<String, Object> result = new LinkedHashMap<>(
                Map.of("single_per_s", 1500.0, "schedule_all_per_s", 30_000.0, "raw_app_tx_per_s", 750.0));
        CeilingRuns.merge("enqueue", null, after, result);
        assertThat(result).containsEntry("raw_single_per_s", 2000.0).containsEntry("single_vs_raw", 0.75)
            .containsEntry("single_vs_raw_tx", 1.5).containsEntry("single_vs_raw_app_tx", 2.0)
            .containsEntry("schedule_all_vs_raw", 0.75).containsKey("ceiling_after")
            .doesNotContainKey("ceiling_before");
        Map<String, Object> noAppTx = new LinkedHashMap<>(Map.of("single_per_s", 1500.0));
        CeilingRuns.merge("enqueue", null, after, noAppTx);
        assertThat(noAppTx).doesNotContainKey("single_vs_raw_app_tx");
        assertThat(RawCalls.warmupCalls(20_000, 1)).isEqualTo(200);
        assertThat(RawCalls.warmupCalls(20_000, 16)).isEqualTo(320);
        assertThat(RawCalls.warmupCalls(100, 16)).isEqualTo(100);
    }

    @Test
    void theSummaryShowsEachVariantAndTheTargets() {
        List<RunResult> runs = new ArrayList<>();
        for (String jvm : List.of("fresh", "warm")) {
            for (int threads : List.of(4, 16)) {
                Map<String, Object> run = new LinkedHashMap<>();
                run.put("workload", "enqueue");
                run.put("mode", "jdbc");
                run.put("instances", 1);
                run.put("enqueue_threads", threads);
                run.put("jvm", jvm);
                run.put("tx", "none");
                run.put("keyed", false);
                run.put("single_per_s", jvm.equals("warm") ? 12_000.0 : 2_000.0);
                run.put("raw_jvm", "warm");
                run.put("calls_overlapped_drain", jvm.equals("fresh"));
                run.put("single_vs_raw", 0.95);
                run.put("single_call_p99_ms", 6.0);
                run.put("duplicates", 0L);
                runs.add(new RunResult(run));
            }
        }
        String summary = Summary.render(runs);
        assertThat(summary).contains("| enqueue | jdbc | 1 | 1 | 4 | fresh | none | false | - | 2,000 | warm |")
            .contains("| enqueue | jdbc | 1 | 1 | 16 | warm | none | false |")
            .contains("| raw app tx/s | vs raw app tx | beside drain |")
            .contains("| workload | mode | inst | runs | threads | jvm | tx | keyed | SQL stmts |")
            .contains("- jdbc x1, fresh JVM: 2,000 calls/s (>= 10,000: missed), 0.95 of the warm raw loop (>= 0.90: "
                    + "met), call p99 6 ms (<= 5 ms: missed)")
            .contains("- jdbc x1, warm JVM: 12,000 calls/s (>= 10,000: met)");
        assertThat(summary.lines().filter(line -> line.startsWith("- jdbc x1,"))).hasSize(2); // 16 threads only
        assertThat(Summary.verdict(Double.NaN, 1, true)).isEqualTo("not measured");

        // repetitions of one combination that differ in a yes-or-no figure: how many said yes
        Map<String, Object> one = new LinkedHashMap<>(runs.get(0).fields());
        one.put("calls_overlapped_drain", false);
        runs.add(new RunResult(one));
        assertThat(Summary.render(runs)).contains("| enqueue | jdbc | 1 | 2 | 4 | fresh | none | false |")
            .contains(" | 1 of 2 | ");
    }
}
