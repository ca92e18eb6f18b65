package io.github.delayqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 2 with a real crash: an instance running in a JVM of its own is killed with SIGKILL while it holds
 * running and waiting tasks. Its connections die with it; the survivors finish its tasks after the lease, and no
 * task is lost, started early, or started while an earlier start of it still ran.
 *
 * <p>The load fits the two survivors (8 handler threads) with room to spare on a busy 2-core machine, so lateness
 * comes from the crash alone: an overloaded queue makes every later task late by its backlog, which no promise
 * bounds.
 */
@Tag("reliability")
class ProcessKilledReliabilityIT {

    private static final long LEASE_MILLIS = 3_000;

    private static final long RECOVERY_INTERVAL_MILLIS = 500;

    private static final long SWEEP_GRACE_MILLIS = 2_000;

    private static final long SWEEP_INTERVAL_MILLIS = 500;

    /**
     * How late a first start may be (README, lateness bounds, "an instance died"): a task the victim had claimed runs
     * after its lease and the next recovery pass; one it had popped from the index but not yet claimed when it died
     * is the index's loss, found by the sweep after its grace and interval. Plus a margin for a loaded 2-core machine
     * running three JVMs, the database and Redis.
     */
    private static final long FIRST_START_BOUND_MILLIS = Math.max(LEASE_MILLIS + RECOVERY_INTERVAL_MILLIS,
            SWEEP_GRACE_MILLIS + SWEEP_INTERVAL_MILLIS) + 2_500;

    private static final long SLOW_MILLIS = 1_500;

    private static final String VICTIM = "victim";

    @Test
    void survivorsFinishTheTasksOfAProcessKilledWithSigkill(@TempDir Path dir) throws Exception {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                "delay.worker.recovery-interval=" + RECOVERY_INTERVAL_MILLIS + "ms", "delay.worker.threads=4",
                "delay.worker.prefetch=8", "delay.hybrid.sweep-grace=" + SWEEP_GRACE_MILLIS + "ms",
                "delay.hybrid.sweep-interval=" + SWEEP_INTERVAL_MILLIS + "ms");
                ChildProcess victim = ChildProcess.start(dir, VICTIM, instances.properties())) {
            Path victimJournal = victim.journal();
            DelayQueue queue = instances.start().getBean(DelayQueue.class);
            instances.start();
            List<TaskRequest> requests = new ArrayList<>();
            // one every 30 ms for 9 s, the first a second after the call so none is overdue before the batch is stored;
            // 20-100 ms each, every tenth 1.5 s so that the victim is surely still running one when it is killed:
            // about 2.5 of the survivors' 8 threads busy
            for (int i = 0; i < 300; i++) {
                long millis = i % 10 == 0 ? SLOW_MILLIS : 20 + i % 5 * 20L;
                requests.add(TaskRequest.of("rel.sleep", millis).delay(Duration.ofMillis(1_000 + i * 30L)).build());
            }
            List<Long> ids = queue.scheduleAll(requests);
            Set<Long> slow = new HashSet<>();
            for (int i = 0; i < ids.size(); i += 10) {
                slow.add(ids.get(i));
            }

            Thread.sleep(2_000);
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            // killed at a moment a slow handler of its runs
            await().atMost(10, TimeUnit.SECONDS).pollInterval(5, TimeUnit.MILLISECONDS)
                .until(() -> runningIn(jdbc, victimJournal, slow));
            victim.kill(); // SIGKILL
            long killedAt = System.currentTimeMillis();

            await().atMost(60, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == ids.size());
            journal.merge(victimJournal, killedAt);
            System.out.println("[process killed] the latest first start was " + latestFirstStart(journal, ids)
                    + " ms after its due time; the bound is " + FIRST_START_BOUND_MILLIS + " ms");
            assertThat(journal.all()).as("starts in the killed process")
                .anyMatch(s -> s.instance().startsWith(VICTIM + ":"));
            // what it held was run by the others, only after its lease ran out
            List<Journal.Start> rerun = journal.all().stream()
                .filter(s -> !s.instance().startsWith(VICTIM + ":"))
                .filter(s -> journal.startsOf(s.taskId()).stream()
                    .anyMatch(o -> o.instance().startsWith(VICTIM + ":") && o.startedAt() < s.startedAt()))
                .toList();
            assertThat(rerun).isNotEmpty()
                .allSatisfy(s -> assertThat(s.startedAt()).isGreaterThanOrEqualTo(killedAt + LEASE_MILLIS - 1_000));
            Verdict.assertKept(journal, ids, FIRST_START_BOUND_MILLIS, 0);
        }
    }

    /** How late the latest first start was, in milliseconds after its due time. */
    private static long latestFirstStart(Journal journal, List<Long> ids) {
        return ids.stream()
            .map(id -> journal.startsOf(id).stream().min(Comparator.comparingLong(Journal.Start::startedAt)))
            .flatMap(Optional::stream)
            .mapToLong(start -> start.startedAt() - start.dueAt())
            .max()
            .orElse(0);
    }

    /** Whether one of {@code tasks} the child holds has a start in its journal and no end yet. */
    private static boolean runningIn(JdbcTemplate jdbc, Path journal, Set<Long> tasks) throws IOException {
        List<String> lines = Files.readAllLines(journal);
        return jdbc.queryForList("SELECT id FROM delay_task WHERE status = 'RUNNING' AND owner LIKE ?", Long.class,
                VICTIM + ":%")
            .stream()
            .filter(tasks::contains)
            .anyMatch(id -> lines.stream().anyMatch(line -> line.startsWith("S " + id + " "))
                    && lines.stream().noneMatch(line -> line.startsWith("E " + id + " ")));
    }
}
