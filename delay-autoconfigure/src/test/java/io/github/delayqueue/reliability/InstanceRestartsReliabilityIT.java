package io.github.delayqueue.reliability;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.testservices.TcpProxy;
import io.github.delayqueue.testservices.TestServices;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lifecycle under faults (issue 16): two instances run tasks continuously while one of them is stopped and
 * started three times ({@code context.stop()}/{@code start()}, as CRaC, Spring Cloud's pause/resume or an operator
 * does), the database connection of that instance is cut while its first stop drains a handler longer than the lease,
 * and Redis hangs (a proxy that stops answering but keeps the connections open, with Lettuce's command timeout left
 * long) for longer than a lease. Judged on the wall clock of this machine against due times on the database clock
 * (same host): no task lost, none early, none started while an earlier start of it still ran, the restarted instance
 * runs tasks after each start, and no handler is interrupted except where its instance really lost the database.
 * <p>
 * The Redis hang is made to meet lease renewal where it touches Redis: renewal hands back the claims the instance gave
 * up because their lease ran short. So one claim answers late (a trigger makes the database sleep in it for most of a
 * lease, as a slow or overloaded database does), the instance gives its tasks up as it must, and Redis stops
 * answering while that claim is still on its way. The instance's database answers throughout: its running handlers
 * must go on.
 */
@Tag("reliability")
class InstanceRestartsReliabilityIT {

    private static final long LEASE_MILLIS = 3_000;

    /** The long handlers that run while Redis hangs: longer than the lease, outlasting the hang. */
    private static final long LONG_MILLIS = 10_000;

    /**
     * The handler the first stop drains: under {@code shutdown-timeout}, so the drain waits for it, and long enough
     * that the other instance's recovery takes its task well before it would end by itself.
     */
    private static final long DRAINED_MILLIS = 15_000;

    /** How long the trigger holds the slow claim: past two thirds of the lease (giving up), under the lease. */
    private static final double SLOW_CLAIM_SECONDS = 2.4;

    /** Tasks the restarted instance must start after each start, out of the steady load (~35 due a second). */
    private static final int RUNS_AFTER_START = 5;

    /** How long a restarted instance may take to start them: it needs well under a second when it works. */
    private static final long RUNS_AFTER_START_SECONDS = 15;

    private static final String RESTARTED = "restarted";

    private static final String STEADY = "steady";

    @Test
    void twoInstancesKeepEveryPromiseWhileOneRestartsThriceLosesTheDatabaseInADrainAndRedisHangs() throws Exception {
        ReliabilityApp.Handlers.failureRate = 0;
        Journal journal = new Journal();
        URI redis = URI.create(TestServices.redisUrl());
        URI database = URI.create(TestServices.endpoints().jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy redisProxy = new TcpProxy(redis.getHost(), redis.getPort());
                TcpProxy databaseProxy = new TcpProxy(database.getHost(), database.getPort());
                Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                        "delay.worker.recovery-interval=500ms", "delay.worker.shutdown-timeout=20s",
                        "delay.worker.threads=8", "spring.data.redis.timeout=30s",
                        "spring.datasource.hikari.connection-timeout=1000",
                        "spring.datasource.hikari.validation-timeout=500")) {
            String redisViaProxy = "spring.data.redis.url=redis://127.0.0.1:" + redisProxy.port();
            DelayQueue queue = instances.start("delay.worker.enabled=false").getBean(DelayQueue.class);
            ConfigurableApplicationContext restarted = instances.start("delay.instance-id=" + RESTARTED,
                    redisViaProxy, "spring.datasource.url=" + instances.database().urlThrough(databaseProxy));
            instances.start("delay.instance-id=" + STEADY, redisViaProxy);
            new Scenario(instances, journal, queue, restarted, redisProxy, databaseProxy).run();
        }
        finally {
            ReliabilityApp.Handlers.failureRate = 0.10;
        }
    }

    /** One run of the scenario: what it did, when, and what went wrong. */
    private static final class Scenario {

        private final Journal journal;

        private final DelayQueue queue;

        private final ConfigurableApplicationContext restarted;

        private final TcpProxy redisProxy;

        private final TcpProxy databaseProxy;

        private final JdbcTemplate jdbc;

        private final String databaseName;

        private final List<Long> ids = new CopyOnWriteArrayList<>();

        private final List<String> problems = new ArrayList<>();

        private final List<String> timeline = new CopyOnWriteArrayList<>();

        private final long begin = System.currentTimeMillis();

        /** When the restarted instance's database connection was cut during its drain, and given back. */
        private long cutAt;

        private long restoredAt;

        private long frozenAt;

        private long thawedAt;

        Scenario(Instances instances, Journal journal, DelayQueue queue, ConfigurableApplicationContext restarted,
                TcpProxy redisProxy, TcpProxy databaseProxy) {
            this.journal = journal;
            this.queue = queue;
            this.restarted = restarted;
            this.redisProxy = redisProxy;
            this.databaseProxy = databaseProxy;
            this.jdbc = new JdbcTemplate(instances.database().dataSource());
            this.databaseName = instances.database().name();
        }

        void run() throws Exception {
            jdbc.execute("""
                    CREATE TRIGGER rel_slow_claim BEFORE UPDATE ON delay_task FOR EACH ROW
                    BEGIN
                      IF NEW.status = 'RUNNING' AND OLD.status <> 'RUNNING' AND OLD.claims = 0
                          AND NEW.payload = '"slow claim"' THEN
                        DO SLEEP(%s);
                      END IF;
                    END""".formatted(SLOW_CLAIM_SECONDS));
            AtomicBoolean loading = new AtomicBoolean(true);
            ExecutorService producer = Executors.newSingleThreadExecutor();
            Future<?> load = producer.submit(() -> {
                int n = 0;
                while (loading.get()) {
                    long delay = ThreadLocalRandom.current().nextLong(0, 1_000);
                    ids.add(queue.schedule("rel.work", "w" + n++, Duration.ofMillis(delay)));
                    pause(25);
                }
                return null;
            });
            try {
                awaitRunsOnRestarted(begin, "its first start");
                redisHangsWhileAClaimIsGivenUp();
                boolean works = restartWithTheDatabaseCutDuringTheDrain();
                for (int round = 2; round <= 3 && works; round++) {
                    works = restart(round);
                }
            }
            finally {
                loading.set(false);
                load.get(30, TimeUnit.SECONDS);
                producer.shutdown();
            }
            awaitEveryTaskSucceeded();
            judge();
        }

        /**
         * Long handlers run on both instances; one claim answers late, so its instance gives the claimed tasks up;
         * while that claim is on its way Redis stops answering, and stays so until the given-up tasks are handed back
         * in the database and a lease and a half more. The instance's database is fine all along.
         */
        private void redisHangsWhileAClaimIsGivenUp() {
            List<Long> longIds = startLongHandlers(List.of(RESTARTED, STEADY), LONG_MILLIS);
            long slow = queue.schedule("rel.work", "slow claim", Duration.ZERO);
            ids.add(slow);
            await("the slow claim to reach the trigger").atMost(15, TimeUnit.SECONDS)
                .pollInterval(20, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.processlist "
                        + "WHERE db = ? AND state = 'User sleep'", Integer.class, databaseName) > 0);
            redisProxy.freeze();
            frozenAt = System.currentTimeMillis();
            note("Redis frozen while the slow claim of task " + slow + " sleeps in the database");
            String[] claimedBy = { "?" };
            try {
                await("the slow claim's tasks to be given up and handed back").atMost(15, TimeUnit.SECONDS)
                    .pollInterval(20, TimeUnit.MILLISECONDS)
                    .until(() -> {
                        var row = jdbc.queryForMap("SELECT status, owner, claims FROM delay_task WHERE id = ?", slow);
                        if (row.get("owner") != null) {
                            claimedBy[0] = (String) row.get("owner");
                        }
                        return !"RUNNING".equals(row.get("status")) && ((Number) row.get("claims")).intValue() > 0;
                    });
                note("the slow claim (" + claimedBy[0] + ") was handed back in the database");
            }
            catch (ConditionTimeoutException ex) {
                note("the slow claim (" + claimedBy[0] + ") was not handed back within 15 s of the freeze");
            }
            // the renewal that handed them back (now waiting on Redis, or not) renewed every lease just before:
            // a lease and a half more is past the point where the lease guard would act on the healthy handlers
            pause(LEASE_MILLIS * 3 / 2);
            redisProxy.thaw();
            thawedAt = System.currentTimeMillis();
            note("Redis answers again, after " + (thawedAt - frozenAt) + " ms");
            awaitSucceeded(longIds, 60);
        }

        /**
         * The restarted instance's first stop drains a handler longer than the lease while its database connection
         * is cut: the lease guard must interrupt the handler before the lease ends, since the steady instance's
         * recovery then runs the task. Then the database answers again and the instance starts.
         */
        private boolean restartWithTheDatabaseCutDuringTheDrain() throws Exception {
            long drained = startLongHandlers(List.of(RESTARTED), DRAINED_MILLIS).stream()
                .filter(id -> journal.startsOf(id).stream().anyMatch(s -> s.instance().startsWith(RESTARTED + ":")))
                .findFirst().orElseThrow();
            DelayQueueRuntime runtime = restarted.getBean(DelayQueueRuntime.class);
            long stopAt = System.currentTimeMillis();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(restarted::stop);
            await("the restarted instance to stop claiming").atMost(10, TimeUnit.SECONDS)
                .until(() -> !runtime.status().running());
            try {
                await().atMost(3, TimeUnit.SECONDS).pollInterval(20, TimeUnit.MILLISECONDS)
                    .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING' "
                            + "AND started_at IS NULL AND owner LIKE ?", Integer.class, RESTARTED + ":%") == 0);
            }
            catch (ConditionTimeoutException ex) {
                // a claim still on its way: it goes back itself, or by lease recovery; nothing to judge here
            }
            databaseProxy.cut();
            cutAt = System.currentTimeMillis();
            note("stop 1: the restarted instance's database cut " + (cutAt - stopAt) + " ms into the stop, while it "
                    + "drains task " + drained + " (" + DRAINED_MILLIS + " ms handler)");
            AtomicBoolean watching = new AtomicBoolean(true);
            CompletableFuture<Void> watch = CompletableFuture.runAsync(() -> watchRow(drained, watching));
            try {
                stopping.get(60, TimeUnit.SECONDS);
            }
            finally {
                watching.set(false);
                watch.join();
            }
            long stoppedAt = System.currentTimeMillis();
            databaseProxy.restore();
            restoredAt = System.currentTimeMillis();
            note("stop 1 returned " + (stoppedAt - cutAt) + " ms after the cut; database given back");
            for (Journal.Start run : sorted(journal.startsOf(drained))) {
                note("  task " + drained + " on " + run.instance() + ": started " + at(run.startedAt()) + ", ended "
                        + (run.endedAt() == Long.MAX_VALUE ? "not yet" : at(run.endedAt()))
                        + (run.interrupted() ? " (interrupted)" : ""));
            }
            return startAgain(1);
        }

        /** Notes every new claim or status of a task's row, to show when the lease ran out and who took the task. */
        private void watchRow(long id, AtomicBoolean watching) {
            String last = "";
            while (watching.get()) {
                Map<String, Object> row = jdbc.queryForMap("SELECT status, owner, attempts, claims, lease_until, "
                        + "started_at FROM delay_task WHERE id = ?", id);
                String claim = row.get("status") + " " + row.get("claims") + " " + row.get("started_at");
                if (!claim.equals(last)) {
                    Object lease = row.get("lease_until");
                    note("  task " + id + " row: " + row.get("status") + ", owner " + row.get("owner") + ", attempts "
                            + row.get("attempts") + ", claim " + row.get("claims") + ", lease until "
                            + (lease == null ? "-" : at(((Number) lease).longValue())) + ", started "
                            + (row.get("started_at") == null ? "-" : at(((Number) row.get("started_at")).longValue())));
                    last = claim;
                }
                pause(100);
            }
        }

        private boolean restart(int round) {
            long stopAt = System.currentTimeMillis();
            restarted.stop();
            note("stop " + round + " took " + (System.currentTimeMillis() - stopAt) + " ms");
            return startAgain(round);
        }

        /** Starts the restarted instance; {@code false} when it runs nothing afterwards (then it stays stopped). */
        private boolean startAgain(int round) {
            long startAt = System.currentTimeMillis();
            restarted.start();
            note("start " + round + " at " + at(startAt));
            boolean works = awaitRunsOnRestarted(startAt, "start " + round);
            if (!works) {
                restarted.stop(); // whatever it does instead of running tasks, let it not go on for the rest
                note("the restarted instance stopped for good: it ran nothing after start " + round);
            }
            return works;
        }

        private boolean awaitRunsOnRestarted(long since, String what) {
            try {
                await().atMost(RUNS_AFTER_START_SECONDS, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS)
                    .until(() -> runsOn(RESTARTED, since) >= RUNS_AFTER_START);
                return true;
            }
            catch (ConditionTimeoutException ex) {
                problems.add("after " + what + " (" + at(since) + ") the restarted instance started "
                        + runsOn(RESTARTED, since) + " task(s) in " + RUNS_AFTER_START_SECONDS + " s, the steady one "
                        + runsOn(STEADY, since) + "; expected at least " + RUNS_AFTER_START);
                return false;
            }
        }

        private long runsOn(String instance, long since) {
            return journal.all().stream()
                .filter(s -> s.instance().startsWith(instance + ":") && s.startedAt() >= since)
                .count();
        }

        /**
         * Schedules handlers longer than the lease, one at a time, until each of {@code instances} runs one; returns
         * every id scheduled (those that landed elsewhere run too).
         */
        private List<Long> startLongHandlers(List<String> instances, long millis) {
            List<Long> scheduled = new ArrayList<>();
            List<String> missing = new ArrayList<>(instances);
            for (int i = 0; i < 12 && !missing.isEmpty(); i++) {
                long id = queue.schedule("rel.sleep", millis, Duration.ZERO);
                scheduled.add(id);
                ids.add(id);
                journal.awaitStarted(id, 15);
                String ranOn = journal.startsOf(id).get(0).instance();
                missing.removeIf(instance -> ranOn.startsWith(instance + ":"));
            }
            assertThat(missing).as("instances that ran none of the long handlers " + scheduled).isEmpty();
            return scheduled;
        }

        private void awaitSucceeded(List<Long> tasks, long seconds) {
            try {
                await().atMost(seconds, TimeUnit.SECONDS).pollInterval(200, TimeUnit.MILLISECONDS)
                    .until(() -> tasks.stream().allMatch(id -> "SUCCEEDED".equals(status(id))));
            }
            catch (ConditionTimeoutException ex) {
                // judged with every task at the end
            }
        }

        private void awaitEveryTaskSucceeded() {
            try {
                await().atMost(60, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                    .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status <> 'SUCCEEDED'",
                            Integer.class) == 0);
            }
            catch (ConditionTimeoutException ex) {
                jdbc.queryForList("SELECT id, status, owner, attempts, claims FROM delay_task "
                        + "WHERE status <> 'SUCCEEDED' ORDER BY id LIMIT 10")
                    .forEach(row -> problems.add("task " + row.get("id") + " did not succeed within 60 s of the "
                            + "end of the load: " + row));
            }
        }

        private String status(long id) {
            return jdbc.queryForObject("SELECT status FROM delay_task WHERE id = ?", String.class, id);
        }

        /** No task lost, none early, none run twice at once, no handler interrupted unless it lost the database. */
        private void judge() {
            int before = problems.size();
            for (long id : ids) {
                List<Journal.Start> starts = sorted(journal.startsOf(id));
                if (starts.isEmpty()) {
                    problems.add("task " + id + " never started");
                    continue;
                }
                Journal.Start first = starts.get(0);
                if (first.startedAt() < first.dueAt()) {
                    problems.add("task " + id + " started " + (first.dueAt() - first.startedAt())
                            + " ms before its due time, on " + first.instance());
                }
                for (int i = 1; i < starts.size(); i++) {
                    Journal.Start earlier = starts.get(i - 1);
                    Journal.Start later = starts.get(i);
                    if (later.startedAt() < earlier.endedAt()) {
                        problems.add("task " + id + " started on " + later.instance() + " at " + at(later.startedAt())
                                + " while its start on " + earlier.instance() + " (" + at(earlier.startedAt())
                                + ") still ran, until " + at(earlier.endedAt())
                                + (earlier.interrupted() ? " (interrupted)" : " (never interrupted)"));
                    }
                }
                for (Journal.Start run : starts) {
                    if (run.interrupted() && !lostTheDatabase(run)) {
                        problems.add("task " + id + " was interrupted on " + run.instance() + " at "
                                + at(run.endedAt()) + " (started " + at(run.startedAt()) + "), though that instance's "
                                + "database answered" + duringTheRedisHang(run.endedAt()));
                    }
                }
                if (problems.size() - before > 30) {
                    problems.add("(more left out)");
                    break;
                }
            }
            System.out.printf("[restarts] %d tasks, %d runs (%d on the restarted instance, %d on the steady one)%n",
                    ids.size(), journal.totalStarts(), runsOn(RESTARTED, 0), runsOn(STEADY, 0));
            timeline.forEach(line -> System.out.println("[restarts] " + line));
            assertThat(problems).as("broken promises (times from the start of the scenario)\n"
                    + String.join("\n", timeline) + "\n").isEmpty();
        }

        /** A run on the restarted instance that was running while its database was cut: the guard must stop it. */
        private boolean lostTheDatabase(Journal.Start run) {
            return run.instance().startsWith(RESTARTED + ":") && cutAt > 0 && run.startedAt() < restoredAt
                    && run.endedAt() >= cutAt && run.endedAt() <= restoredAt;
        }

        private String duringTheRedisHang(long at) {
            return at >= frozenAt && at <= thawedAt + LEASE_MILLIS
                    ? ", while Redis hung (" + at(frozenAt) + " to " + at(thawedAt) + ")" : "";
        }

        private void note(String line) {
            timeline.add(at(System.currentTimeMillis()) + " " + line);
        }

        private String at(long millis) {
            return String.format("+%.3fs", (millis - begin) / 1000.0);
        }

        private static List<Journal.Start> sorted(List<Journal.Start> starts) {
            List<Journal.Start> sorted = new ArrayList<>(starts);
            sorted.sort(Comparator.comparingLong(Journal.Start::startedAt));
            return sorted;
        }

        private static void pause(long millis) {
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
