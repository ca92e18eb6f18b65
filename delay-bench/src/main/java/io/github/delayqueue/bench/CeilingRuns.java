package io.github.delayqueue.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The raw ceiling of a run, measured once before the workload (instances idle) and once after (instances stopped);
 * the mean of the two is reported, so load that comes and goes on a shared machine hits both sides alike. The
 * enqueue workload measures its raw loops after only ({@link Workload#ceilingBefore}): in a fresh JVM a loop before
 * would warm the very driver code the measured calls are to meet cold; so in both JVM variants the raw loops are warm.
 * Its hand-written Spring transaction ({@code raw_app_tx}) needs the instance's beans and is measured by the workload
 * itself before the instances stop ({@link EnqueueWorkload#afterMeasurement}); its ratio is taken here.
 */
final class CeilingRuns {

    /** The figures of a phase that are averaged over both phases, or taken from the one phase there is. */
    private static final List<String> RATES = List.of("raw_insert_per_s", "raw_index_add_per_s", "raw_enqueue_per_s",
            "raw_single_per_s", "raw_single_call_p50_ms", "raw_single_call_p99_ms", "raw_tx_per_s",
            "raw_tx_call_p50_ms", "raw_tx_call_p99_ms", "ceiling_claim_per_s", "ceiling_complete_per_s");

    private CeilingRuns() {
    }

    static Map<String, Object> measure(Run run, String phase) throws Exception {
        String workload = run.spec.workload();
        int n = run.plan.size();
        Ceiling ceiling = new Ceiling(run.servers, run.database, run.prefix + ":" + phase,
                run.hybrid() ? run.redis : null);
        ceiling.createTable(run.table);
        Map<String, Object> raw = new LinkedHashMap<>();
        if (workload.equals("enqueue")) {
            BenchRun.log("raw loops (" + phase + "): " + n + " multi-row, " + n + " single calls from "
                    + run.spec.callers() + " threads" + (run.spec.businessRow() ? ", " + n + " transactions" : "")
                    + (run.spec.keyed() ? ", keyed" : ""));
            long later = System.currentTimeMillis() + 1_800_000L;
            raw.putAll(ceiling.load(n, later));
            RawCalls calls = new RawCalls(run.servers, run.database, ceiling, run.hybrid() ? run.redis : null,
                    run.spec.keyed());
            raw.putAll(calls.single(n, run.spec.callers(), later));
            if (run.spec.businessRow()) {
                raw.putAll(calls.inTransaction(n, run.spec.callers(), later));
            }
        }
        else {
            int rows = workload.equals("burst") ? n : Math.min(n, run.options.tasks("burst"));
            BenchRun.log("raw ceiling (" + phase + ") on " + rows + " rows");
            raw.putAll(ceiling.load(rows, System.currentTimeMillis()));
            raw.putAll(ceiling.drain(rows, run.options.effectiveCeilingBatch(), run.spec.instances(),
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(180)));
        }
        ceiling.dropTable();
        return raw;
    }

    /** {@code before} is null when the workload measures after only. */
    static void merge(String workload, Map<String, Object> before, Map<String, Object> after,
            Map<String, Object> result) {
        for (String key : RATES) {
            Object b = after.get(key);
            Object a = before == null ? b : before.get(key);
            if (a instanceof Number x && b instanceof Number y) {
                result.put(key, Stats.round((x.doubleValue() + y.doubleValue()) / 2));
            }
        }
        if (before != null) {
            result.put("ceiling_before", before);
        }
        result.put("ceiling_after", after);
        if (workload.equals("enqueue")) {
            result.put("single_vs_raw", ratio(result.get("single_per_s"), result.get("raw_single_per_s")));
            if (result.containsKey("raw_tx_per_s")) {
                result.put("single_vs_raw_tx", ratio(result.get("single_per_s"), result.get("raw_tx_per_s")));
            }
            if (result.containsKey("raw_app_tx_per_s")) { // measured beside the idle instances, on their beans
                result.put("single_vs_raw_app_tx",
                        ratio(result.get("single_per_s"), result.get("raw_app_tx_per_s")));
            }
            result.put("schedule_all_vs_raw", ratio(result.get("schedule_all_per_s"), result.get("raw_enqueue_per_s")));
        }
        if (workload.equals("burst")) {
            result.put("drain_vs_ceiling", ratio(result.get("drain_per_s"), result.get("ceiling_claim_per_s")));
            result.put("enqueue_vs_raw", ratio(result.get("enqueue_per_s"), result.get("raw_enqueue_per_s")));
        }
    }

    static Double ratio(Object ours, Object raw) {
        if (ours instanceof Number a && raw instanceof Number b && b.doubleValue() > 0) {
            return Math.round(a.doubleValue() / b.doubleValue() * 1000) / 1000.0;
        }
        return null;
    }
}
