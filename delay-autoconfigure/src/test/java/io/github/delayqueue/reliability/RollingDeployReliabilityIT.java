package io.github.delayqueue.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * A rolling deploy across two versions of one application, each instance a JVM of its own: version 1 serves
 * {@code deploy.a}, version 2 also the new type {@code deploy.new}, which producers schedule from the start. Version 1
 * instances never claim a {@code deploy.new} task (before type-aware claims they dead-lettered it at once): those
 * tasks wait, pending, until the first version 2 instance runs them, while {@code deploy.a} runs throughout. The
 * version 1 instances then stop as an orchestrator stops them (SIGTERM). Nothing fails and nothing is lost.
 */
@Tag("reliability")
class RollingDeployReliabilityIT {

    private static final List<String> V1 = List.of("deploy.a=true");

    private static final List<String> V2 = List.of("deploy.a=true", "deploy.new=true");

    @Test
    void aRollingDeployThatAddsATypeLosesAndFailsNothing(@TempDir Path dir) throws Exception {
        Journal journal = new Journal();
        List<ChildProcess> children = new ArrayList<>();
        ExecutorService producing = Executors.newSingleThreadExecutor();
        AtomicBoolean produce = new AtomicBoolean(true);
        try (Instances instances = new Instances(DeployApp.class, journal, "delay.mode=hybrid")) {
            DelayQueue producer = instances.start("delay.worker.enabled=false").getBean(DelayQueue.class);
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            ChildProcess v1a = start(dir, children, "v1a", instances, V1);
            ChildProcess v1b = start(dir, children, "v1b", instances, V1);
            Map<Long, String> scheduled = new ConcurrentHashMap<>();
            Future<?> load = producing.submit(() -> {
                while (produce.get()) {
                    for (String type : List.of("deploy.a", "deploy.new")) {
                        long delay = ThreadLocalRandom.current().nextLong(0, 1_000);
                        scheduled.put(producer.schedule(type, "x", Duration.ofMillis(delay)), type);
                    }
                    Thread.sleep(50);
                }
                return null;
            });

            // version 1 alone, for longer than the sweep grace: deploy.a runs, deploy.new waits, nothing fails
            Thread.sleep(8_000);
            assertThat(failed(jdbc)).as("FAILED tasks while only version 1 runs").isZero();
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'deploy.new' "
                    + "AND status IN ('SCHEDULED', 'QUEUED')", Integer.class)).as("deploy.new waits").isPositive();
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE task_type = 'deploy.a' "
                    + "AND status = 'SUCCEEDED'", Integer.class)).as("deploy.a runs").isPositive();

            // the rolling deploy: one version 2 up, one version 1 down, and again
            ChildProcess v2a = start(dir, children, "v2a", instances, V2);
            v1a.terminate();
            ChildProcess v2b = start(dir, children, "v2b", instances, V2);
            v1b.terminate();
            Thread.sleep(2_000);
            produce.set(false);
            load.get(10, TimeUnit.SECONDS);

            await("every task done").atMost(2, TimeUnit.MINUTES).pollInterval(500, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status IN ('SUCCEEDED', "
                        + "'FAILED')", Integer.class) == scheduled.size());
            assertThat(failed(jdbc)).as("FAILED tasks").isZero();
            for (ChildProcess child : List.of(v1a, v1b, v2a, v2b)) {
                journal.merge(child.journal(), Long.MAX_VALUE);
            }
            Verdict.assertKept(journal, scheduled.keySet(), Duration.ofMinutes(3).toMillis(), 0);
            List<Journal.Start> newOnVersion1 = journal.all().stream()
                .filter(start -> scheduled.get(start.taskId()).equals("deploy.new"))
                .filter(start -> start.instance().startsWith("v1"))
                .toList();
            assertThat(newOnVersion1).as("deploy.new started on version 1").isEmpty();
            long newTasks = scheduled.values().stream().filter("deploy.new"::equals).count();
            System.out.println("[rolling deploy] " + scheduled.size() + " tasks, " + newTasks + " of deploy.new, "
                    + journal.totalStarts() + " starts");
        }
        finally {
            produce.set(false);
            producing.shutdownNow();
            children.forEach(ChildProcess::close);
        }
    }

    private static ChildProcess start(Path dir, List<ChildProcess> children, String name, Instances instances,
            List<String> version) throws Exception {
        List<String> properties = new ArrayList<>(instances.properties());
        properties.add("delay.mode=hybrid");
        properties.addAll(version);
        ChildProcess child = ChildProcess.start(dir, name, DeployApp.class, properties);
        children.add(child);
        return child;
    }

    private static int failed(JdbcTemplate jdbc) {
        Integer count = jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'FAILED'", Integer.class);
        return count == null ? 0 : count;
    }
}
