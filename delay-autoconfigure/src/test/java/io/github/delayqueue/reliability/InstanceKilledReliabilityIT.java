package io.github.delayqueue.reliability;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.EngineAccess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 2: one of three instances is killed mid-run (every engine thread stopped at once, nothing written back)
 * while it holds running and waiting tasks; the survivors finish them after the lease. Settings, load and bound:
 * {@link CrashLoad}.
 */
@Tag("reliability")
class InstanceKilledReliabilityIT {

    @Test
    void survivorsFinishTheTasksOfAKilledInstance() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, CrashLoad.PROPERTIES)) {
            List<ConfigurableApplicationContext> contexts = List.of(instances.start(), instances.start(),
                    instances.start());
            List<Long> ids = contexts.get(0).getBean(DelayQueue.class).scheduleAll(CrashLoad.requests());
            Set<Long> slow = CrashLoad.slow(ids);

            sleep(2_000);
            DelayQueueRuntime victim = contexts.get(1).getBean(DelayQueueRuntime.class);
            String victimId = victim.status().instanceId();
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            // crashed at a moment a slow handler of its runs
            await().atMost(10, TimeUnit.SECONDS).pollInterval(5, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForList("SELECT id FROM delay_task WHERE status = 'RUNNING' AND owner = ?",
                        Long.class, victimId).stream()
                    .filter(slow::contains)
                    .anyMatch(id -> journal.startsOf(id).stream()
                        .anyMatch(s -> s.instance().equals(victimId) && s.endedAt() == Long.MAX_VALUE)));
            EngineAccess.crash(victim);
            long killedAt = System.currentTimeMillis();

            await().atMost(60, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == ids.size());
            // the tasks it held were finished by the others, and only after its lease ran out
            List<Journal.Start> rerun = journal.all().stream()
                .filter(s -> !s.instance().equals(victimId))
                .filter(s -> journal.startsOf(s.taskId()).stream()
                    .anyMatch(o -> o.instance().equals(victimId) && o.startedAt() < killedAt
                            && o.startedAt() < s.startedAt()))
                .toList();
            assertThat(rerun).isNotEmpty()
                .allSatisfy(s -> assertThat(s.startedAt())
                    .isGreaterThanOrEqualTo(killedAt + CrashLoad.LEASE_MILLIS - 1_000));
            // first starts stay close to due, except the victim's, which waited for the lease or the sweep
            System.out.println("[instance killed] " + CrashLoad.latestFirstStart(journal, ids, killedAt));
            Verdict.assertKept(journal, ids, CrashLoad.FIRST_START_BOUND_MILLIS, 0);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
