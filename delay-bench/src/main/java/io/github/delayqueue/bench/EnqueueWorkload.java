package io.github.delayqueue.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.runtime.QueueClock;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * enqueue, as applications call it: n single {@code schedule(type, payload, Instant)} calls made by
 * {@code --enqueue-threads} threads as fast as they can, all due at one instant {@code --lead} after the first
 * call, while the instances' consumers run: a burst whose enqueue is part of the run. Each call is timed on its
 * thread; the burst's lateness is measured as in every workload. Variants: outside any transaction, or each call in a
 * Spring transaction (the instance's {@link PlatformTransactionManager}) that also inserts a {@link BusinessRow};
 * in a fresh JVM (no warm-up: {@link FreshJvm} makes the run the first thing its JVM does) or after a warm-up of
 * the same calls; without keys, or each call with a key of its own ({@code TaskRequest.key}, the default key mode).
 * After the measurement, {@code scheduleAll} of n tasks due 30 minutes ahead is timed too, and in the business-row
 * variant the same transaction written by hand on the instance's beans ({@link RawCalls#inAppTransaction}), while
 * the instances still run (idle: every task ran).
 */
final class EnqueueWorkload implements Workload {

    /** The tasks of the scheduleAll measurement: due long after the run, never run, not recorded. */
    static final String LATER_TYPE = "bench.later";

    private long businessRowsBefore;

    @Override
    public void prepare(Run run, Map<String, Object> result) throws Exception {
        if (run.spec.businessRow()) {
            BusinessRow.createTable(run.servers, run.database);
        }
    }

    /**
     * Warm: the same calls (same threads, same transaction variant) of warm-up tasks due at once, so the consumers
     * run them too, then the wait until they all ran. Fresh: nothing, the measured calls come first.
     */
    @Override
    public void warmUp(Run run, AtomicInteger warmups) throws Exception {
        if (run.spec.fresh()) {
            return;
        }
        int count = run.options.warmup(run.spec.workload());
        if (count == 0) {
            return;
        }
        ScheduleCall warm = new ScheduleCall(run, BenchApp.WARMUP_TYPE, null);
        Calls.run("bench-warmup", count, run.spec.callers(), thread -> warm);
        WarmUp.awaitRan(warmups, count);
    }

    @Override
    public void schedule(Run run, Map<String, Object> result) throws Exception {
        Plan plan = run.plan;
        if (run.spec.businessRow()) {
            businessRowsBefore = BusinessRow.count(run.servers, run.database);
        }
        ScheduleCall measured = new ScheduleCall(run, BenchApp.TYPE, plan);
        // all due lead after the first call: the due instant is fixed as the threads start
        Calls.Times times = Calls.run("bench-schedule", plan.size(), run.spec.callers(), thread -> measured,
                () -> plan.place(Recorder.wallMicros()));
        times.describe("single_per_s", "single_call_", result);
        result.put("pool_max_size", poolSize(run));
        result.put("enqueue_ms", Stats.round((times.endNanos() - times.startNanos()) / 1e6));
        long due = plan.firstDueWallMicros();
        long lastCall = Long.MIN_VALUE;
        int afterDue = 0;
        for (long returned : plan.calledWallMicros) {
            lastCall = Math.max(lastCall, returned);
            afterDue += returned > due ? 1 : 0;
        }
        result.put("enqueue_done_after_due_ms", Stats.round((lastCall - due) / 1000.0));
        result.put("enqueued_before_due", lastCall < due);
        // the consumers start draining at the due instant: calls still running then were measured beside the drain
        result.put("calls_overlapped_drain", lastCall > due);
        result.put("calls_returned_after_due", afterDue);
    }

    /**
     * The instance's connection pool: a transaction holds a connection from its first statement to its commit, so
     * with more calling threads than connections the business-row calls wait for the pool (the raw loops do not:
     * they have a connection per thread). Null when the pool is not Hikari.
     */
    private static Integer poolSize(Run run) {
        try {
            return run.instances().get(0).getBean(DataSource.class).unwrap(HikariDataSource.class).getMaximumPoolSize();
        }
        catch (java.sql.SQLException | RuntimeException ex) {
            return null;
        }
    }

    /** The business variant committed exactly one order per call, or the run measured something else. */
    @Override
    public void finish(Run run, Map<String, Object> result) throws Exception {
        if (run.spec.businessRow()) {
            long rows = BusinessRow.count(run.servers, run.database) - businessRowsBefore;
            result.put("business_rows", rows);
            if (rows != run.plan.size()) {
                throw new IllegalStateException(rows + " business rows committed for " + run.plan.size() + " calls");
            }
        }
    }

    /**
     * {@code scheduleAll} of n tasks in one call, due 30 minutes ahead: the multi-row path, after the counters. Then,
     * for business-row runs that measure the raw loops, the hand-written Spring transaction on instance 0's own
     * transaction manager and pool, which exist only while it runs: the other raw loops come after the instances
     * stopped ({@link CeilingRuns}).
     */
    @Override
    public void afterMeasurement(Run run, Map<String, Object> result) throws Exception {
        int n = run.plan.size();
        Instant later = Instant.now().plus(Duration.ofMinutes(30));
        List<TaskRequest> batch = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            batch.add(TaskRequest.of(LATER_TYPE, i).dueAt(later).build());
        }
        long start = System.nanoTime();
        run.instances().queue().scheduleAll(batch);
        long end = System.nanoTime();
        result.put("schedule_all_per_s", Stats.round(n / Ceiling.seconds(end - start)));
        if (!run.options.ceiling(run.spec.workload())) {
            return;
        }
        // how the raw loops are measured, in both JVM variants: in this JVM, after the measured calls (which in a
        // fresh run already ran the driver code the loops share), each after untimed calls of its own: warm
        int threads = run.spec.callers();
        result.put("raw_jvm", BenchOptions.WARM);
        result.put("raw_warmup_calls", RawCalls.warmupCalls(n, threads));
        if (run.spec.businessRow()) {
            BenchRun.log("raw loop: " + n + " hand-written Spring transactions from " + threads + " threads"
                    + (run.spec.keyed() ? ", keyed" : "") + ", on instance 0's transaction manager and pool");
            ConfigurableApplicationContext context = run.instances().get(0);
            RedisTarget redis = run.hybrid() ? run.redis : null;
            Ceiling ceiling = new Ceiling(run.servers, run.database, run.prefix + ":app-tx", redis);
            ceiling.createTable(run.table);
            try {
                RawCalls calls = new RawCalls(run.servers, run.database, ceiling, redis, run.spec.keyed());
                result.putAll(calls.inAppTransaction(n, threads, System.currentTimeMillis() + 1_800_000L,
                        context.getBean(PlatformTransactionManager.class), context.getBean(DataSource.class)));
            }
            finally {
                ceiling.dropTable();
            }
        }
    }

    /** The raw loops run after the measurement in both variants: before it they would warm a fresh JVM. */
    @Override
    public boolean ceilingBefore() {
        return false;
    }

    /**
     * One call as an application makes it, on instance 0: {@code schedule(type, slot, dueAt)}, alone or inside a
     * transaction with a business row. Shared by the threads: it holds nothing of one thread's.
     */
    private static final class ScheduleCall implements Calls.Caller {

        private final DelayQueue queue;

        private final QueueClock clock;

        private final String type;

        /** The measured calls' plan; null for the warm-up, whose tasks are due at once and not recorded. */
        private final Plan plan;

        private final TransactionTemplate tx;

        private final JdbcTemplate jdbc;

        private final String insertOrder = BusinessRow.insertInto(BusinessRow.TABLE);

        /** Whether each call passes a key of its own: {@code "k-"} and its slot, unique per type. */
        private final boolean keyed;

        ScheduleCall(Run run, String type, Plan plan) {
            ConfigurableApplicationContext context = run.instances().get(0);
            this.queue = run.instances().queue();
            this.clock = run.instances().clock();
            this.type = type;
            this.plan = plan;
            boolean business = run.spec.businessRow();
            this.tx = business ? new TransactionTemplate(context.getBean(PlatformTransactionManager.class)) : null;
            this.jdbc = business ? new JdbcTemplate(context.getBean(DataSource.class)) : null;
            this.keyed = run.spec.keyed();
        }

        @Override
        public void call(int slot) {
            Instant dueAt = plan == null ? Instant.now() : plan.dueAt(slot);
            if (tx == null) {
                schedule(slot, dueAt);
                return;
            }
            tx.executeWithoutResult(status -> {
                jdbc.update(insertOrder, System.currentTimeMillis());
                schedule(slot, dueAt);
            });
        }

        private void schedule(int slot, Instant dueAt) {
            if (keyed) {
                queue.schedule(TaskRequest.of(type, slot).key("k-" + slot).dueAt(dueAt).build());
            }
            else {
                queue.schedule(type, slot, dueAt);
            }
        }

        /**
         * Notes when the call returned, and the due time the library stored: the caller's instant on the queue clock,
         * unless the queue clock had passed it already, when the library stored its own "now" instead.
         */
        @Override
        public void after(int slot) {
            if (plan == null) {
                return;
            }
            plan.calledWallMicros[slot] = Recorder.wallMicros();
            long asked = clock.toQueueMillis(plan.dueAt(slot));
            plan.queueDueMillis[slot] = clock.latestNow() < asked ? asked : Plan.DUE_UNCHECKED;
        }
    }
}
