package io.github.delayqueue.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.engine.QueueClock;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One run: a fresh database and key prefix, N instances of {@link BenchApp}, a warm-up, the workload, the wait for
 * every task to start and every result to be written, counters before and after, a look at what is left in the
 * database and the index, the instances stopped; the raw ceiling on the same servers before and after the workload;
 * all removed at the end.
 */
final class BenchRun {

    private final BenchOptions options;

    private final Servers servers;

    private final String mode;

    private final int instances;

    private final String workload;

    private final int rate;

    private final int repetition;

    private final String table;

    BenchRun(BenchOptions options, Servers servers, String mode, int instances, String workload, int rate,
            int repetition) {
        this.options = options;
        this.servers = servers;
        this.mode = mode;
        this.instances = instances;
        this.workload = workload;
        this.rate = rate;
        this.repetition = repetition;
        this.table = options.properties.getOrDefault("delay.jdbc.table-name", "delay_task");
    }

    private static void log(String message) {
        System.err.println("[bench] " + message);
    }

    Map<String, Object> execute() throws Exception {
        String database = Servers.newName("delay_bench_");
        String prefix = Servers.newName("delay-bench-");
        Plan plan = Plan.build(options, workload, rate, 42L + repetition);
        int n = plan.size();
        Recorder recorder = new Recorder(plan.dueMillis, instances);
        AtomicInteger warmups = new AtomicInteger();
        List<ConfigurableApplicationContext> contexts = new ArrayList<>();
        Thread cleanUp = new Thread(() -> {
            servers.dropDatabase(database);
            servers.deleteKeys(prefix);
        }, "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanUp);
        ScheduledExecutorService offsets = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-offsets");
            t.setDaemon(true);
            return t;
        });
        RedisClient redisClient = RedisClient.create(servers.redisUrl);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("workload", workload);
        result.put("mode", mode);
        result.put("instances", instances);
        if (workload.equals("steady") || workload.equals("mixed")) {
            result.put("rate", rate);
            result.put("duration_s", options.duration.toMillis() / 1000.0);
        }
        result.put("tasks", workload.equals("enqueue") ? n / 2 : n);
        result.put("repetition", repetition);
        try {
            servers.createDatabase(database);
            log(describe() + ": starting " + instances + " instance(s) on " + database);
            for (int i = 0; i < instances; i++) {
                contexts.add(start(database, prefix, new BenchApp.Slot(recorder, i, warmups)));
            }
            Runnable refreshOffsets = () -> {
                for (int i = 0; i < contexts.size(); i++) {
                    recorder.offsetMillis(i, offsetMillis(contexts.get(i).getBean(QueueClock.class)));
                }
            };
            refreshOffsets.run();
            offsets.scheduleWithFixedDelay(refreshOffsets, 500, 500, TimeUnit.MILLISECONDS);
            DelayQueue queue = contexts.get(0).getBean(DelayQueue.class);
            QueueClock clock = contexts.get(0).getBean(QueueClock.class);
            warmUp(queue, clock, warmups);
            Map<String, Object> ceilingBefore = options.ceiling ? rawCeiling(database, prefix, n, "before") : null;

            // --- measured from here ---------------------------------------------------------------------------
            Map<String, Long> dbBefore = ServerCounters.database(servers);
            Map<String, Long> redisBefore = ServerCounters.redis(redisClient);
            ClientCounters.reset();
            long cpuBefore = processCpuNanos();
            long[] machineBefore = machineTicks();
            String loadBefore = loadAverage();

            int polls = 0;
            if (workload.equals("enqueue")) {
                enqueue(queue, clock, plan, result);
                polls += countTasks(database, null, result, "rows_after");
            }
            else {
                if (workload.equals("burst")) {
                    burst(queue, clock, plan, result);
                }
                else {
                    produce(queue, clock, plan, result);
                }
                awaitStarts(recorder, plan, clock, result);
                polls += awaitWritten(database, recorder, n, result);
            }

            long cpuAfter = processCpuNanos();
            long[] machineAfter = machineTicks();
            Map<String, Long> dbAfter = ServerCounters.database(servers);
            Map<String, Long> redisAfter = ServerCounters.redis(redisClient);
            Map<String, Long> client = ClientCounters.snapshot();
            // --- measured until here -------------------------------------------------------------------------

            result.put("jvm_cpu_s", Stats.round((cpuAfter - cpuBefore) / 1e9));
            result.put("machine_busy_pct", Stats.round(busyPercent(machineBefore, machineAfter)));
            result.put("load_before", loadBefore);
            result.put("load_after", loadAverage());
            polls += statuses(database, result);
            if (workload.equals("enqueue")) {
                long rows = ((Number) result.get("rows_after")).longValue();
                result.put("lost", Math.max(0, n - rows));
                result.put("duplicates", Math.max(0, rows - n));
                if (mode.equals("hybrid")) {
                    result.put("indexed", indexSize(redisClient, prefix + ":due:*"));
                }
            }
            else if (mode.equals("hybrid")) {
                result.put("index_left", indexSize(redisClient, prefix + ":due:*"));
            }

            for (int i = contexts.size() - 1; i >= 0; i--) {
                contexts.get(i).close();
            }
            contexts.clear();
            offsets.shutdownNow();

            if (!workload.equals("enqueue")) {
                outcomes(recorder, plan, result);
            }
            costs(client, ServerCounters.delta(dbBefore, dbAfter), ServerCounters.delta(redisBefore, redisAfter),
                    polls, n, result);
            if (ceilingBefore != null) {
                ceiling(ceilingBefore, rawCeiling(database, prefix, n, "after"), result);
            }
            return result;
        }
        finally {
            offsets.shutdownNow();
            for (int i = contexts.size() - 1; i >= 0; i--) {
                try {
                    contexts.get(i).close();
                }
                catch (RuntimeException ex) {
                    log("closing instance " + i + " failed: " + ex);
                }
            }
            redisClient.shutdown();
            servers.dropDatabase(database);
            servers.deleteKeys(prefix);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanUp);
            }
            catch (IllegalStateException ex) {
                // shutting down already
            }
        }
    }

    String describe() {
        return workload + " " + mode + " x" + instances
                + (workload.equals("steady") || workload.equals("mixed") ? " " + rate + "/s" : "") + " #" + repetition;
    }

    // --- instances ------------------------------------------------------------------------------------------------

    private ConfigurableApplicationContext start(String database, String prefix, BenchApp.Slot slot) {
        List<String> properties = new ArrayList<>();
        properties.add("spring.datasource.url=" + servers.urlFor(database));
        properties.add("spring.datasource.username=" + servers.user);
        properties.add("spring.datasource.password=" + servers.password);
        properties.add("spring.data.redis.url=" + servers.redisUrl);
        properties.add("spring.data.redis.timeout=2s"); // as the README advises; a user's --spring.* wins
        properties.add("spring.main.banner-mode=off");
        properties.add("spring.main.log-startup-info=false");
        properties.add("spring.jmx.enabled=false");
        properties.add("logging.level.root=WARN");
        properties.add("delay.mode=" + mode);
        properties.add("delay.redis.key-prefix=" + prefix);
        properties.add("bench.client-counts=" + options.clientCounts);
        if (options.threads != null) {
            properties.add("delay.worker.threads=" + options.threads);
        }
        if (options.prefetch != null) {
            properties.add("delay.worker.prefetch=" + options.prefetch);
        }
        if (options.batchSize != null) {
            properties.add("delay.worker.batch-size=" + options.batchSize);
        }
        if (workload.equals("mixed")) {
            properties.add("delay.hybrid.threshold=" + options.threshold.toMillis() + "ms");
            properties.add("delay.hybrid.migration-interval=" + options.migrationInterval.toMillis() + "ms");
        }
        options.properties.forEach((name, value) -> {
            if (!name.equals("spring.datasource.url")) {
                properties.add(name + "=" + value);
            }
        });
        return new SpringApplicationBuilder(BenchApp.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .properties(properties.toArray(String[]::new))
            .initializers(ctx -> ctx.getBeanFactory().registerSingleton("benchSlot", slot))
            .run();
    }

    /** The queue clock minus the wall clock, read so that no millisecond tick falls between the two reads. */
    static long offsetMillis(QueueClock clock) {
        long offset = 0;
        for (int i = 0; i < 10; i++) {
            long before = System.currentTimeMillis();
            long queue = clock.now();
            long after = System.currentTimeMillis();
            offset = queue - before;
            if (before == after) {
                return offset;
            }
        }
        return offset;
    }

    private void warmUp(DelayQueue queue, QueueClock clock, AtomicInteger warmups) throws InterruptedException {
        int count = options.warmup;
        if (count == 0) {
            return;
        }
        List<TaskRequest> batch = new ArrayList<>();
        int singles = Math.min(200, count / 4);
        for (int i = 0; i < count - singles; i++) {
            batch.add(TaskRequest.of(BenchApp.WARMUP_TYPE, i).dueAt(Instant.ofEpochMilli(clock.now())).build());
            if (batch.size() == 100) {
                queue.scheduleAll(batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            queue.scheduleAll(batch);
        }
        for (int i = 0; i < singles; i++) {
            queue.schedule(BenchApp.WARMUP_TYPE, i, Instant.ofEpochMilli(clock.now()));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (warmups.get() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        if (warmups.get() < count) {
            log("warm-up: only " + warmups.get() + " of " + count + " tasks ran within 60s");
        }
        Thread.sleep(500); // let the last results be written before the counters are read
    }

    // --- workloads ----------------------------------------------------------------------------------------------

    /** The plan is in queue time; due instants are read on the application's clock, so they are converted. */
    private static List<TaskRequest> requests(Plan plan, int from, int to, QueueClock clock) {
        List<TaskRequest> requests = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            requests.add(TaskRequest.of(BenchApp.TYPE, i).dueAt(clock.toApplicationTime(plan.dueMillis[i])).build());
        }
        return requests;
    }

    private void burst(DelayQueue queue, QueueClock clock, Plan plan, Map<String, Object> result) {
        plan.place(clock.now());
        List<TaskRequest> requests = requests(plan, 0, plan.size(), clock);
        long start = System.nanoTime();
        queue.scheduleAll(requests);
        long end = System.nanoTime();
        long enqueuedAt = clock.now();
        result.put("enqueue_per_s", Stats.round(plan.size() / Ceiling.seconds(end - start)));
        result.put("enqueue_ms", Stats.round((end - start) / 1e6));
        result.put("enqueued_before_due", enqueuedAt < plan.dueMillis[0]);
        if (enqueuedAt >= plan.dueMillis[0]) {
            log("the burst was still being scheduled when it fell due; raise --lead");
        }
    }

    /** Steady and mixed: schedules each slot at its planned time, in small scheduleAll batches when behind. */
    private void produce(DelayQueue queue, QueueClock clock, Plan plan, Map<String, Object> result) {
        long queueNow = clock.now();
        long originMillis = queueNow + 200;
        plan.place(originMillis);
        List<TaskRequest> all = requests(plan, 0, plan.size(), clock);
        long originNanos = System.nanoTime() + (originMillis - queueNow) * 1_000_000L;
        int calls = 0;
        long maxLagMicros = 0;
        int scheduledLate = 0;
        int i = 0;
        int n = plan.size();
        while (i < n) {
            long target = originNanos + plan.scheduleAtMicros[i] * 1000;
            long wait;
            while ((wait = target - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            long now = System.nanoTime();
            int j = i + 1;
            while (j < n && j - i < 500 && originNanos + plan.scheduleAtMicros[j] * 1000 <= now) {
                j++;
            }
            maxLagMicros = Math.max(maxLagMicros, (now - target) / 1000);
            queue.scheduleAll(all.subList(i, j));
            calls++;
            long after = clock.now();
            for (int k = i; k < j; k++) {
                if (after > plan.dueMillis[k]) {
                    scheduledLate++;
                }
            }
            i = j;
        }
        result.put("schedule_calls", calls);
        result.put("producer_max_lag_ms", Stats.round(maxLagMicros / 1000.0));
        result.put("scheduled_after_due", scheduledLate);
    }

    private void enqueue(DelayQueue queue, QueueClock clock, Plan plan, Map<String, Object> result)
            throws InterruptedException {
        plan.place(clock.now());
        int half = plan.size() / 2;
        List<TaskRequest> batch = requests(plan, 0, half, clock);
        long start = System.nanoTime();
        queue.scheduleAll(batch);
        long end = System.nanoTime();
        result.put("schedule_all_per_s", Stats.round(half / Ceiling.seconds(end - start)));

        List<TaskRequest> singles = requests(plan, half, plan.size(), clock);
        AtomicInteger next = new AtomicInteger();
        long[] latencyNanos = new long[singles.size()];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < options.enqueueThreads; t++) {
            threads.add(new Thread(() -> {
                int k;
                while ((k = next.getAndIncrement()) < singles.size() && failure.get() == null) {
                    long s = System.nanoTime();
                    try {
                        queue.schedule(singles.get(k));
                    }
                    catch (RuntimeException ex) {
                        failure.compareAndSet(null, ex);
                    }
                    latencyNanos[k] = System.nanoTime() - s;
                }
            }, "bench-schedule-" + t));
        }
        long singleStart = System.nanoTime();
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        long singleEnd = System.nanoTime();
        if (failure.get() != null) {
            throw new IllegalStateException("schedule() failed: " + failure.get(), failure.get());
        }
        double[] ms = new double[latencyNanos.length];
        for (int k = 0; k < ms.length; k++) {
            ms[k] = latencyNanos[k] / 1e6;
        }
        double[] sorted = Stats.sorted(ms);
        result.put("enqueue_threads", options.enqueueThreads);
        result.put("single_per_s", Stats.round(singles.size() / Ceiling.seconds(singleEnd - singleStart)));
        result.put("single_call_p50_ms", Stats.round(Stats.percentile(sorted, 0.50)));
        result.put("single_call_p99_ms", Stats.round(Stats.percentile(sorted, 0.99)));
        result.put("single_call_max_ms", Stats.round(Stats.percentile(sorted, 1.0)));
    }

    // --- waiting --------------------------------------------------------------------------------------------

    private void awaitStarts(Recorder recorder, Plan plan, QueueClock clock, Map<String, Object> result)
            throws InterruptedException {
        long lastDue = plan.lastDueMillis();
        long timeoutNanos = options.timeout.toNanos();
        int seen = -1;
        long lastProgress = System.nanoTime();
        while (recorder.distinct() < recorder.size()) {
            Thread.sleep(10);
            int now = recorder.distinct();
            if (now != seen) {
                seen = now;
                lastProgress = System.nanoTime();
            }
            else if (clock.now() > lastDue && System.nanoTime() - lastProgress > timeoutNanos) {
                log("gave up waiting: " + now + " of " + recorder.size() + " tasks started, no progress for "
                        + options.timeout);
                result.put("gave_up_waiting", true);
                return;
            }
        }
    }

    /** Waits until every result is written (status SUCCEEDED); returns the polls made (they show in Com_select). */
    private int awaitWritten(String database, Recorder recorder, int n, Map<String, Object> result)
            throws SQLException, InterruptedException {
        long lastStartMicros = 0;
        for (int i = 0; i < recorder.size(); i++) {
            lastStartMicros = Math.max(lastStartMicros, recorder.firstStartMicros(i));
        }
        int polls = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String sql = "SELECT COUNT(*) FROM " + table + " WHERE task_type = ? AND status = 'SUCCEEDED'";
        try (Connection connection = servers.connect(database); PreparedStatement ps = connection.prepareStatement(sql)) {
            while (true) {
                ps.setString(1, BenchApp.TYPE);
                long count;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    count = rs.getLong(1);
                }
                polls++;
                if (count >= n) {
                    long writtenMicros = recorder.nowMicros(0);
                    result.put("all_written_after_last_start_ms", lastStartMicros == 0 ? null
                            : Stats.round(Math.max(0, writtenMicros - lastStartMicros) / 1000.0));
                    return polls;
                }
                if (System.nanoTime() > deadline) {
                    result.put("all_written_after_last_start_ms", null);
                    log("only " + count + " of " + n + " results written 30s after the last start");
                    return polls;
                }
                Thread.sleep(20);
            }
        }
    }

    private int countTasks(String database, String status, Map<String, Object> result, String name)
            throws SQLException {
        String sql = "SELECT COUNT(*) FROM " + table + " WHERE task_type = ?" + (status == null ? "" : " AND status = ?");
        try (Connection connection = servers.connect(database); PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, BenchApp.TYPE);
            if (status != null) {
                ps.setString(2, status);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                result.put(name, rs.getLong(1));
            }
        }
        return 1;
    }

    private int statuses(String database, Map<String, Object> result) throws SQLException {
        Map<String, Long> statuses = new LinkedHashMap<>();
        String sql = "SELECT status, COUNT(*) FROM " + table + " WHERE task_type = ? GROUP BY status ORDER BY status";
        try (Connection connection = servers.connect(database); PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, BenchApp.TYPE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    statuses.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        result.put("rows_by_status", statuses);
        return 1;
    }

    private static long indexSize(RedisClient client, String pattern) {
        long size = 0;
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                for (String key : page.getKeys()) {
                    size += redis.zcard(key);
                }
                cursor = page;
            }
            while (!cursor.isFinished());
        }
        return size;
    }

    // --- results --------------------------------------------------------------------------------------------

    private void outcomes(Recorder recorder, Plan plan, Map<String, Object> result) {
        int n = recorder.size();
        long lost = 0;
        long duplicates = 0;
        long early = 0;
        long lastStart = Long.MIN_VALUE;
        long firstStart = Long.MAX_VALUE;
        double[] lateness = new double[n];
        int started = 0;
        List<Double> near = new ArrayList<>();
        List<Double> far = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int starts = recorder.starts(i);
            if (starts == 0) {
                lost++;
                continue;
            }
            duplicates += starts - 1;
            long start = recorder.firstStartMicros(i);
            lastStart = Math.max(lastStart, start);
            firstStart = Math.min(firstStart, start);
            double late = (start - recorder.dueMillis(i) * 1000) / 1000.0;
            if (late < -1.0) {
                early++;
            }
            lateness[started++] = late;
            if (workload.equals("mixed")) {
                (plan.tier[i] == Plan.NEAR ? near : far).add(late);
            }
        }
        double[] sorted = Stats.sorted(Arrays.copyOf(lateness, started));
        result.put("started", started);
        result.put("duplicates", duplicates);
        result.put("lost", lost);
        result.put("started_early", early);
        result.put("due_mismatch", recorder.dueMismatch());
        result.put("retried", recorder.retries());
        result.put("lateness_min_ms", Stats.round(Stats.percentile(sorted, 0)));
        result.put("lateness_p50_ms", Stats.round(Stats.percentile(sorted, 0.50)));
        result.put("lateness_p99_ms", Stats.round(Stats.percentile(sorted, 0.99)));
        result.put("lateness_p999_ms", Stats.round(Stats.percentile(sorted, 0.999)));
        result.put("lateness_max_ms", Stats.round(Stats.percentile(sorted, 1.0)));
        result.put("lateness_mean_ms", Stats.round(Stats.mean(sorted)));
        if (workload.equals("burst") && started > 0) {
            long due = recorder.dueMillis(0) * 1000;
            result.put("drain_per_s", Stats.round(n / ((lastStart - due) / 1e6)));
            result.put("first_start_after_due_ms", Stats.round((firstStart - due) / 1000.0));
            result.put("last_start_after_due_ms", Stats.round((lastStart - due) / 1000.0));
        }
        if (workload.equals("mixed")) {
            for (Map.Entry<String, List<Double>> tier : Map.of("near", near, "far", far).entrySet()) {
                double[] values = Stats.sorted(tier.getValue().stream().mapToDouble(Double::doubleValue).toArray());
                result.put(tier.getKey() + "_tasks", values.length);
                result.put(tier.getKey() + "_p50_ms", Stats.round(Stats.percentile(values, 0.50)));
                result.put(tier.getKey() + "_p99_ms", Stats.round(Stats.percentile(values, 0.99)));
                result.put(tier.getKey() + "_max_ms", Stats.round(Stats.percentile(values, 1.0)));
            }
        }
        List<Long> perInstance = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            perInstance.add(recorder.startsOn(i));
        }
        result.put("starts_by_instance", perInstance);
    }

    /**
     * Per-task cost: what the client sent (exact, this process only) and what the servers counted (server-wide:
     * includes the benchmark's own few status polls, subtracted from Com_select, and anything else running).
     */
    private static void costs(Map<String, Long> client, Map<String, Long> db, Map<String, Long> redis, int polls,
            int n, Map<String, Object> result) {
        long sql = 0;
        long redisCalls = 0;
        Map<String, Object> clientPerTask = new LinkedHashMap<>();
        List<Map.Entry<String, Long>> entries = new ArrayList<>(client.entrySet());
        entries.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        for (Map.Entry<String, Long> entry : entries) {
            String key = entry.getKey();
            if (key.startsWith("sql ") && !key.startsWith("sql batch row ")) {
                sql += entry.getValue();
            }
            if (key.startsWith("redis ")) {
                redisCalls += entry.getValue();
            }
            clientPerTask.put(key, perTask(entry.getValue(), n));
        }
        result.put("sql_per_task", perTask(sql, n));
        result.put("commits_per_task", perTask(client.getOrDefault("jdbc commit", 0L), n));
        result.put("autocommit_switches_per_task", perTask(client.getOrDefault("jdbc setAutoCommit(false)", 0L)
                + client.getOrDefault("jdbc setAutoCommit(true)", 0L), n));
        result.put("redis_calls_per_task", perTask(redisCalls, n));

        Map<String, Long> server = new LinkedHashMap<>(db);
        server.computeIfPresent("Com_select", (k, v) -> v - polls);
        server.remove("Com_show_status");
        Map<String, Object> serverPerTask = new LinkedHashMap<>();
        server.forEach((name, value) -> serverPerTask.put(name, perTask(value, n)));
        for (String name : List.of("Com_select", "Com_insert", "Com_update", "Com_commit", "Com_set_option",
                "Innodb_os_log_fsyncs", "Innodb_data_fsyncs")) {
            result.put("server_" + name.toLowerCase() + "_per_task", perTask(server.getOrDefault(name, 0L), n));
        }
        Map<String, Long> redisServer = new LinkedHashMap<>(redis);
        redisServer.remove("info");
        long redisCommands = redisServer.values().stream().mapToLong(Long::longValue).sum();
        result.put("server_redis_commands_per_task", perTask(redisCommands, n));
        Map<String, Object> redisPerTask = new LinkedHashMap<>();
        redisServer.forEach((name, value) -> redisPerTask.put(name, perTask(value, n)));
        result.put("client_per_task", clientPerTask);
        result.put("server_db_per_task", serverPerTask);
        result.put("server_redis_per_task", redisPerTask);
    }

    private static double perTask(long count, int n) {
        return Math.round(count * 1000.0 / n) / 1000.0;
    }

    /**
     * The raw ceiling, measured once before the workload (instances idle) and once after (instances stopped); the
     * mean of the two is reported, so load that comes and goes on a shared machine hits both sides alike.
     */
    private Map<String, Object> rawCeiling(String database, String prefix, int n, String phase) throws Exception {
        Ceiling ceiling = new Ceiling(servers, database, prefix + ":" + phase, mode.equals("hybrid"));
        ceiling.createTable(table);
        Map<String, Object> raw = new LinkedHashMap<>();
        if (workload.equals("enqueue")) {
            int half = n / 2;
            long later = System.currentTimeMillis() + 1_800_000L;
            raw.putAll(ceiling.load(half, later));
            raw.putAll(ceiling.singleInserts(half, options.enqueueThreads, later));
        }
        else {
            int rows = workload.equals("burst") ? n : Math.min(n, options.tasks);
            log("raw ceiling (" + phase + ") on " + rows + " rows");
            raw.putAll(ceiling.load(rows, System.currentTimeMillis()));
            raw.putAll(ceiling.drain(rows, options.effectiveCeilingBatch(), instances,
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(180)));
        }
        ceiling.dropTable();
        return raw;
    }

    private void ceiling(Map<String, Object> before, Map<String, Object> after, Map<String, Object> result) {
        for (String key : List.of("raw_insert_per_s", "raw_index_add_per_s", "raw_enqueue_per_s", "raw_single_per_s",
                "ceiling_claim_per_s", "ceiling_complete_per_s")) {
            if (before.get(key) instanceof Number a && after.get(key) instanceof Number b) {
                result.put(key, Stats.round((a.doubleValue() + b.doubleValue()) / 2));
            }
        }
        result.put("ceiling_before", before);
        result.put("ceiling_after", after);
        if (workload.equals("enqueue")) {
            result.put("schedule_all_vs_raw", ratio(result.get("schedule_all_per_s"), result.get("raw_enqueue_per_s")));
            result.put("single_vs_raw", ratio(result.get("single_per_s"), result.get("raw_single_per_s")));
        }
        if (workload.equals("burst")) {
            result.put("drain_vs_ceiling", ratio(result.get("drain_per_s"), result.get("ceiling_claim_per_s")));
            result.put("enqueue_vs_raw", ratio(result.get("enqueue_per_s"), result.get("raw_enqueue_per_s")));
        }
    }

    private static Double ratio(Object ours, Object raw) {
        if (ours instanceof Number a && raw instanceof Number b && b.doubleValue() > 0) {
            return Math.round(a.doubleValue() / b.doubleValue() * 1000) / 1000.0;
        }
        return null;
    }

    // --- machine --------------------------------------------------------------------------------------------

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    /** {busy, total} jiffies of all CPUs from /proc/stat; zeros where there is none. */
    static long[] machineTicks() {
        try {
            String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] parts = line.trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < parts.length; i++) {
                total += Long.parseLong(parts[i]);
            }
            long idle = Long.parseLong(parts[4]) + (parts.length > 5 ? Long.parseLong(parts[5]) : 0);
            return new long[] { total - idle, total };
        }
        catch (Exception ex) {
            return new long[] { 0, 0 };
        }
    }

    static double busyPercent(long[] before, long[] after) {
        long total = after[1] - before[1];
        return total <= 0 ? Double.NaN : 100.0 * (after[0] - before[0]) / total;
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return String.join(" ", Collections.unmodifiableList(Arrays.asList(parts).subList(0, 3)));
        }
        catch (Exception ex) {
            return "?";
        }
    }
}
