package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.engine.DelayQueueEngine;
import io.github.delayqueue.engine.EngineAccess;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 2: one of three instances is killed mid-run (every engine thread stopped at once, nothing written back)
 * while it holds running and waiting tasks; the survivors finish them after the lease.
 */
@Tag("reliability")
class InstanceKilledReliabilityIT {

    private static final long LEASE_MILLIS = 3_000;

    @Test
    void survivorsFinishTheTasksOfAKilledInstance() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                "delay.worker.recovery-interval=500ms", "delay.worker.threads=4", "delay.worker.prefetch=8")) {
            List<ConfigurableApplicationContext> contexts = List.of(instances.start(), instances.start(),
                    instances.start());
            List<TaskRequest> requests = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                requests.add(TaskRequest.of("rel.sleep", 20 + i % 5 * 20L).delay(Duration.ofMillis(i * 6L)).build());
            }
            List<Long> ids = contexts.get(0).getBean(DelayQueue.class).scheduleAll(requests);

            sleep(2_000);
            DelayQueueEngine victim = contexts.get(1).getBean(DelayQueueEngine.class);
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            // crashed at a moment a handler of its runs
            await().atMost(10, TimeUnit.SECONDS).pollInterval(5, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForList("SELECT id FROM delay_task WHERE status = 'RUNNING' AND owner = ?",
                        Long.class, victim.instanceId()).stream()
                    .anyMatch(id -> journal.startsOf(id).stream()
                        .anyMatch(s -> s.instance().equals(victim.instanceId()) && s.endedAt() == Long.MAX_VALUE)));
            EngineAccess.crash(victim);
            long killedAt = System.currentTimeMillis();

            await().atMost(60, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == ids.size());
            // the tasks it held were finished by the others, and only after its lease ran out
            List<Journal.Start> rerun = journal.all().stream()
                .filter(s -> !s.instance().equals(victim.instanceId()))
                .filter(s -> journal.startsOf(s.taskId()).stream()
                    .anyMatch(o -> o.instance().equals(victim.instanceId()) && o.startedAt() < killedAt
                            && o.startedAt() < s.startedAt()))
                .toList();
            assertThat(rerun).isNotEmpty()
                .allSatisfy(s -> assertThat(s.startedAt()).isGreaterThanOrEqualTo(killedAt + LEASE_MILLIS - 1_000));
            // first starts stay close to due, except the victim's, which waited for the lease
            Verdict.assertKept(journal, ids, LEASE_MILLIS + 3_000, 0);
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
