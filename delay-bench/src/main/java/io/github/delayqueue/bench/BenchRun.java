package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.runtime.QueueClock;

/**
 * One run: a fresh database and key prefix, whatever the workload prepares, N instances of {@link BenchApp}, a
 * warm-up, the workload, the wait for every task to start and every result to be written, counters before and
 * after, a look at what is left in the database and the index, the instances stopped; the raw ceiling on the same
 * servers before and after the workload (enqueue: after only); all removed at the end.
 */
final class BenchRun {

    private final BenchOptions options;

    private final Servers servers;

    private final RunSpec spec;

    private final String table;

    BenchRun(BenchOptions options, Servers servers, RunSpec spec) {
        this.options = options;
        this.servers = servers;
        this.spec = spec;
        this.table = options.properties.getOrDefault("delay.jdbc.table-name", "delay_task");
    }

    static void log(String message) {
        System.err.println("[bench] " + message);
    }

    String describe() {
        return spec.describe();
    }

    RunResult execute() throws Exception {
        String database = Servers.newName("delay_bench_");
        String prefix = Servers.newName("delay-bench-");
        String name = spec.workload();
        Workload workload = Workload.of(name);
        Plan plan = Plan.build(options, name, spec.rate(), 42L + spec.repetition());
        int n = plan.size();
        Recorder recorder = new Recorder(plan, spec.instances());
        AtomicInteger warmups = new AtomicInteger();
        boolean cluster = spec.cluster();
        Leftovers leftovers = new Leftovers(database, prefix, cluster);
        RedisTarget redis = servers.redis(cluster);
        Run run = new Run(options, servers, spec, database, prefix, table, plan, recorder, redis);
        Instances instances = new Instances(options, servers, spec, database, prefix, workload.properties(options));
        Map<String, Object> result = header(n);
        try {
            servers.createDatabase(database);
            workload.prepare(run, result);
            log(describe() + ": starting " + spec.instances() + " instance(s) on " + database);
            for (int i = 0; i < spec.instances(); i++) {
                instances.start(new BenchApp.Slot(recorder, i, warmups));
            }
            run.instances(instances);
            workload.warmUp(run, warmups);
            boolean ceiling = options.ceiling(name);
            Map<String, Object> ceilingBefore = ceiling && workload.ceilingBefore()
                    ? CeilingRuns.measure(run, "before") : null;

            // --- measured from here ---------------------------------------------------------------------------
            Map<String, Long> dbBefore = ServerCounters.database(servers);
            Map<String, Long> redisBefore = ServerCounters.redis(redis);
            ClientCounters.reset();
            SqlWatch.reset();
            SqlWatch.Mark watchBefore = SqlWatch.mark();
            long cpuBefore = Machine.processCpuNanos();
            long[] machineBefore = Machine.ticks();
            String loadBefore = Machine.loadAverage();

            Waits waits = new Waits(servers, database, table);
            workload.schedule(run, result);
            waits.awaitStarts(recorder, options.timeout, result);
            waits.awaitWritten(recorder, Waits.writePatience(plan), result);
            workload.finish(run, result);

            long cpuAfter = Machine.processCpuNanos();
            long[] machineAfter = Machine.ticks();
            Map<String, Long> dbAfter = ServerCounters.database(servers);
            Map<String, Long> redisAfter = ServerCounters.redis(redis);
            Map<String, Long> client = ClientCounters.snapshot();
            SqlWatch.Window watched = SqlWatch.between(watchBefore, SqlWatch.mark());
            // --- measured until here -------------------------------------------------------------------------

            result.put("jvm_cpu_s", Stats.round((cpuAfter - cpuBefore) / 1e9));
            result.put("machine_busy_pct", Stats.round(Machine.busyPercent(machineBefore, machineAfter)));
            result.put("load_before", loadBefore);
            result.put("load_after", Machine.loadAverage());
            if (options.clientCounts(name)) {
                SqlWatch.describe(watched, result);
            }
            clocks(instances, result);
            waits.statuses(result);
            if (run.hybrid()) {
                result.put("index_left", redis.sortedSetSizes(prefix + ":due:*"));
            }
            workload.afterMeasurement(run, result);

            instances.close();

            Outcomes.describe(recorder, spec.instances(), result);
            Costs.describe(client, ServerCounters.delta(dbBefore, dbAfter),
                    ServerCounters.delta(redisBefore, redisAfter), waits.polls(), n, result);
            if (ceiling) {
                CeilingRuns.merge(name, ceilingBefore, CeilingRuns.measure(run, "after"), result);
            }
            return new RunResult(result);
        }
        finally {
            workload.close();
            instances.close();
            redis.close();
            leftovers.remove();
        }
    }

    /**
     * The cold raw loop of a fresh run ({@code --cold-raw}), in a child JVM of its own: the instances start as in
     * {@link #execute} (the same context start, Flyway and pools before the first call), then the raw single-call
     * loop runs with no untimed calls before it. Its rate is what a hand-written loop makes as the first calls of a
     * JVM in the state the measured calls meet; set beside theirs, it says how much of a fresh run's gap to the warm
     * raw loop is the JVM's and the driver's warm-up, which any code pays, and how much is the library's.
     */
    RunResult executeColdRaw() throws Exception {
        String database = Servers.newName("delay_bench_");
        String prefix = Servers.newName("delay-bench-");
        Workload workload = Workload.of(spec.workload());
        int n = options.tasks(spec.workload());
        RedisTarget redis = servers.redis(spec.cluster());
        Instances instances = new Instances(options, servers, spec, database, prefix, workload.properties(options));
        Map<String, Object> result = header(n);
        Leftovers leftovers = new Leftovers(database, prefix, spec.cluster()); // the parent's Ctrl-C ends this JVM too
        try {
            servers.createDatabase(database);
            log(describe() + ": starting " + spec.instances() + " instance(s) on " + database + ", for the raw loop");
            for (int i = 0; i < spec.instances(); i++) {
                instances.start(new BenchApp.Slot(new Recorder(Plan.build(options, spec.workload(), spec.rate(), 42L),
                        spec.instances()), i, new AtomicInteger()));
            }
            RedisTarget index = spec.mode().equals("hybrid") ? redis : null;
            Ceiling ceiling = new Ceiling(servers, database, prefix + ":cold", index);
            ceiling.createTable(table);
            log("raw loop, cold: " + n + " single calls from " + spec.callers() + " threads, none before them");
            result.putAll(new RawCalls(servers, database, ceiling, index, spec.keyed())
                .coldSingle(n, spec.callers(), System.currentTimeMillis() + 1_800_000L));
            ceiling.dropTable();
            return new RunResult(result);
        }
        finally {
            instances.close();
            redis.close();
            leftovers.remove();
        }
    }

    private Map<String, Object> header(int n) {
        Map<String, Object> result = new LinkedHashMap<>();
        String name = spec.workload();
        result.put("workload", name);
        result.put("mode", spec.mode());
        result.put("instances", spec.instances());
        if (spec.mode().equals("hybrid")) {
            result.put("redis", spec.redis());
            result.put("shards", spec.cluster() ? options.shards
                    : Integer.parseInt(options.properties.getOrDefault("delay.redis.shards", "1")));
        }
        if (!spec.variant().isEmpty()) {
            result.put("variant", spec.variant());
        }
        if (spec.callers() > 0) {
            result.put("enqueue_threads", spec.callers());
            result.put("jvm", spec.jvm());
            result.put("tx", spec.tx());
            result.put("keyed", spec.keyed());
        }
        if (BenchOptions.paced(name)) {
            result.put("rate", spec.rate());
            result.put("duration_s", options.duration(name).toMillis() / 1000.0);
        }
        result.put("tasks", n);
        result.put("actuator", options.actuator(name));
        result.put("repetition", spec.repetition());
        return result;
    }

    /**
     * Each instance's queue clock against the wall clock: its offset and the width of the window it is known to lie
     * in. Due times are converted at the window's high end and starts timed at its low end, so the width is a floor
     * under the wall-clock lateness that the queue's own lateness does not show.
     */
    private static void clocks(Instances instances, Map<String, Object> result) {
        List<Double> offsets = new ArrayList<>();
        List<Double> uncertainty = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            QueueClock clock = instances.clock(i);
            offsets.add(Stats.round(clock.offsetMicros() / 1000.0));
            uncertainty.add(Stats.round(clock.uncertaintyMicros() / 1000.0));
        }
        result.put("clock_offset_ms", offsets);
        result.put("clock_uncertainty_ms", uncertainty);
    }

    /** A run's database and Redis key prefix: removed at its end, and by a shutdown hook on a Ctrl-C before that. */
    private final class Leftovers {

        private final String database;

        private final String prefix;

        private final boolean cluster;

        private final Thread hook;

        Leftovers(String database, String prefix, boolean cluster) {
            this.database = database;
            this.prefix = prefix;
            this.cluster = cluster;
            this.hook = new Thread(this::drop, "bench-cleanup");
            Runtime.getRuntime().addShutdownHook(hook);
        }

        void remove() {
            drop();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (IllegalStateException ex) {
                // shutting down already
            }
        }

        private void drop() {
            servers.dropDatabase(database);
            servers.deleteKeys(prefix, cluster);
        }
    }
}
