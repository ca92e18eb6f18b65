package io.github.delayqueue.reliability;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.OutcomeUnknownException;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.testservices.RedisKeys;
import io.github.delayqueue.testservices.TcpProxy;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Everything at once: thousands of tasks scheduled from many threads, inside and outside transactions, while one
 * instance is killed with SIGKILL, another is frozen with SIGSTOP for longer than its lease, Redis is restarted
 * (unreachable, then back empty) and the database restarts (every connection dropped, new ones refused for a few
 * seconds). Judged on the wall clock of this machine against the due times the callers passed: no task lost, none
 * started early, none started twice at the same time (a run of the frozen instance is not running while it is
 * frozen; see {@link ProcessFrozenReliabilityIT} for what happens on waking).
 */
@Tag("reliability")
class ChaosReliabilityIT {

    private static final int PRODUCERS = 8;

    private static final long SCHEDULING_MILLIS = 20_000;

    @Test
    void nothingIsLostStartedEarlyOrRunTwiceAtOnceWhileEverythingFails(@TempDir Path dir) throws Exception {
        ReliabilityApp.Handlers.failureRate = 0.05;
        Journal journal = new Journal();
        String redisUrl = TestServices.redisUrl();
        java.net.URI redis = java.net.URI.create(redisUrl);
        try (TcpProxy redisProxy = new TcpProxy(redis.getHost(), redis.getPort());
                Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                        "delay.worker.recovery-interval=500ms", "delay.hybrid.sweep-grace=2s",
                        "delay.hybrid.sweep-interval=500ms", "delay.worker.threads=4", "delay.worker.prefetch=8",
                        "spring.data.redis.timeout=1s", "spring.datasource.hikari.connection-timeout=1000",
                        "spring.datasource.hikari.validation-timeout=500");
                TcpProxy databaseProxy = instances.database().newProxy()) {
            String[] viaProxies = { "spring.datasource.url=" + instances.database().urlThrough(databaseProxy),
                    "spring.data.redis.url=redis://127.0.0.1:" + redisProxy.port() };
            ConfigurableApplicationContext producer = instances.start(viaProxies);
            instances.start(viaProxies);
            try (ChildProcess killed = ChildProcess.start(dir, "killed", instances.properties());
                    ChildProcess frozen = ChildProcess.start(dir, "frozen", instances.properties())) {
                run(instances, producer, journal, killed, frozen, redisProxy, databaseProxy);
            }
        }
        finally {
            ReliabilityApp.Handlers.failureRate = 0.10;
        }
    }

    private static void run(Instances instances, ConfigurableApplicationContext producer, Journal journal,
            ChildProcess killed, ChildProcess frozen, TcpProxy redisProxy, TcpProxy databaseProxy) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());

        DelayQueue queue = producer.getBean(DelayQueue.class);
        TransactionTemplate tx = new TransactionTemplate(producer.getBean(PlatformTransactionManager.class));
        Map<Long, Long> dueByCaller = new ConcurrentHashMap<>();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger unknown = new AtomicInteger();
        AtomicInteger unknownRows = new AtomicInteger();
        AtomicInteger commitUnknown = new AtomicInteger();
        long start = System.currentTimeMillis();
        ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
        List<Future<?>> running = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int thread = p;
            running.add(producers.submit(() -> {
                int n = 0;
                while (System.currentTimeMillis() - start < SCHEDULING_MILLIS) {
                    Instant due = Instant.now().plusMillis(ThreadLocalRandom.current().nextLong(0, 5_000));
                    String payload = thread + "-" + n++;
                    int rows = n % 3 != 0 && n % 7 == 0 ? 2 : 1; // what the call writes, were it stored
                    try {
                        if (n % 3 == 0) {
                            boolean[] scheduled = new boolean[1];
                            try {
                                Long id = tx.execute(status -> {
                                    Long written = queue.schedule("rel.work", payload, due);
                                    scheduled[0] = true;
                                    return written;
                                });
                                dueByCaller.put(id, due.toEpochMilli());
                            }
                            catch (org.springframework.dao.DataAccessException
                                    | org.springframework.transaction.TransactionException ex) {
                                if (!scheduled[0]) {
                                    throw ex; // refused inside the transaction, which rolled back: nothing stored
                                }
                                // the caller's own commit failed as the database went away: it may have reached
                                // the database, as any commit whose answer is lost; the queue's promise ends at
                                // the schedule() that returned
                                commitUnknown.incrementAndGet();
                            }
                        }
                        else if (n % 7 == 0) {
                            List<Long> ids = queue.scheduleAll(List.of(
                                    TaskRequest.of("rel.work", payload + "a").dueAt(due).build(),
                                    TaskRequest.of("rel.work", payload + "b").key("k" + payload).dueAt(due)
                                        .build()));
                            ids.forEach(id -> dueByCaller.put(id, due.toEpochMilli()));
                        }
                        else {
                            dueByCaller.put(queue.schedule("rel.work", payload, due), due.toEpochMilli());
                        }
                    }
                    catch (OutcomeUnknownException ex) {
                        unknown.incrementAndGet(); // may exist: judged with every other row below
                        unknownRows.addAndGet(rows);
                    }
                    catch (DelayQueueException | org.springframework.dao.DataAccessException
                            | org.springframework.transaction.TransactionException ex) {
                        refused.incrementAndGet(); // nothing stored; the database is away
                    }
                    pause(25);
                }
                return null;
            }));
        }

        pauseUntil(start + 3_000);
        killed.kill();
        long killedAt = System.currentTimeMillis();
        pauseUntil(start + 5_000);
        frozen.freeze();
        long frozenAt = System.currentTimeMillis();
        pauseUntil(start + 7_000);
        redisProxy.cut();
        RedisKeys.deleteAll(TestServices.endpoints(), List.of(instances.keyPrefix())); // back empty
        pauseUntil(start + 10_000);
        redisProxy.restore();
        pauseUntil(start + 12_000);
        frozen.resume();
        long wokeAt = System.currentTimeMillis();
        pauseUntil(start + 14_000);
        databaseProxy.cut();
        pauseUntil(start + 18_000);
        databaseProxy.restore();
        for (Future<?> producing : running) {
            producing.get(60, TimeUnit.SECONDS);
        }
        producers.shutdown();

        await().atMost(90, TimeUnit.SECONDS).pollInterval(1, TimeUnit.SECONDS)
            .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status <> 'SUCCEEDED'",
                    Integer.class) == 0);
        journal.merge(killed.journal(), killedAt);
        Journal frozenRuns = new Journal();
        frozenRuns.merge(frozen.journal(), Long.MAX_VALUE);
        for (Journal.Start run : frozenRuns.all()) {
            if (run.startedAt() >= frozenAt) {
                journal.addRun(run.taskId(), run.instance(), run.startedAt(), run.endedAt(), run.dueAt(),
                        run.attempt());
                continue;
            }
            // a run caught by the freeze did not run while frozen: judged as the part before and the part after
            journal.addRun(run.taskId(), run.instance(), run.startedAt(), Math.min(run.endedAt(), frozenAt),
                    run.dueAt(), run.attempt());
            if (run.endedAt() > wokeAt) {
                journal.addRun(run.taskId(), run.instance(), wokeAt, run.endedAt(), run.dueAt(), run.attempt());
            }
        }

        System.out.printf("[chaos] %d tasks scheduled, %d calls refused, %d of unknown outcome, %d caller's commits of "
                + "unknown outcome, %d runs%n", dueByCaller.size(), refused.get(), unknown.get(), commitUnknown.get(),
                journal.totalStarts());
        // Enough that every fault met a stream of tasks: a call takes 25 ms of pause plus its round trips, so an idle
        // machine schedules about 5,000, and one loaded by a full build beside it was seen at 1,182 (and 905).
        assertThat(dueByCaller.size()).as("tasks scheduled").isGreaterThan(PRODUCERS * 50);
        assertThat(refused.get() + unknown.get() + commitUnknown.get()).as("calls the database outage refused")
            .isPositive();
        // the rows no returned call named, by payload ("<thread>-<n>", "a"/"b" for the two of a scheduleAll, every
        // third call in a caller's transaction): which kind of call stored them, if they are more than expected
        List<Map<String, Object>> unnamed = jdbc.queryForList("SELECT id, payload, task_key FROM delay_task").stream()
            .filter(row -> !dueByCaller.containsKey(((Number) row.get("id")).longValue())).toList();
        System.out.println("[chaos] rows no returned call named: " + unnamed);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task", Integer.class))
            .as("rows: every returned task, and the calls (or callers' commits) of unknown outcome that were stored")
            .isBetween(dueByCaller.size(), dueByCaller.size() + unknownRows.get() + commitUnknown.get());
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Long, Long> task : dueByCaller.entrySet()) {
            List<Journal.Start> starts = new ArrayList<>(journal.startsOf(task.getKey()));
            if (starts.isEmpty()) {
                problems.add("task " + task.getKey() + " never started");
                continue;
            }
            starts.sort(java.util.Comparator.comparingLong(Journal.Start::startedAt));
            if (starts.get(0).startedAt() < task.getValue()) {
                problems.add("task " + task.getKey() + " started " + (task.getValue() - starts.get(0).startedAt())
                        + " ms before the due time its caller passed");
            }
            for (int i = 1; i < starts.size(); i++) {
                if (starts.get(i).startedAt() < starts.get(i - 1).endedAt()) {
                    problems.add("task " + task.getKey() + " started on " + starts.get(i).instance()
                            + " while its run on " + starts.get(i - 1).instance() + " was still running");
                }
            }
        }
        assertThat(problems).as("broken promises").isEmpty();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pauseUntil(long at) {
        pause(Math.max(0, at - System.currentTimeMillis()));
    }
}
