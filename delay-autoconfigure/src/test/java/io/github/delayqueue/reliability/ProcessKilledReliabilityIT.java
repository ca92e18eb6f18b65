package io.github.delayqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
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
 * task is lost, started early, or started while an earlier start of it still ran. Settings, load and bound:
 * {@link CrashLoad}.
 */
@Tag("reliability")
class ProcessKilledReliabilityIT {

    private static final String VICTIM = "victim";

    @Test
    void survivorsFinishTheTasksOfAProcessKilledWithSigkill(@TempDir Path dir) throws Exception {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, CrashLoad.PROPERTIES);
                ChildProcess victim = ChildProcess.start(dir, VICTIM, instances.properties())) {
            Path victimJournal = victim.journal();
            DelayQueue queue = instances.start().getBean(DelayQueue.class);
            instances.start();
            List<Long> ids = queue.scheduleAll(CrashLoad.requests());
            Set<Long> slow = CrashLoad.slow(ids);

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
            System.out.println("[process killed] " + CrashLoad.latestFirstStart(journal, ids, killedAt));
            assertThat(journal.all()).as("starts in the killed process")
                .anyMatch(s -> s.instance().startsWith(VICTIM + ":"));
            // what it held was run by the others, only after its lease ran out
            List<Journal.Start> rerun = journal.all().stream()
                .filter(s -> !s.instance().startsWith(VICTIM + ":"))
                .filter(s -> journal.startsOf(s.taskId()).stream()
                    .anyMatch(o -> o.instance().startsWith(VICTIM + ":") && o.startedAt() < s.startedAt()))
                .toList();
            assertThat(rerun).isNotEmpty().allSatisfy(s -> assertThat(s.startedAt())
                .isGreaterThanOrEqualTo(killedAt + CrashLoad.LEASE_MILLIS - 1_000));
            Verdict.assertKept(journal, ids, CrashLoad.FIRST_START_BOUND_MILLIS, 0);
        }
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
