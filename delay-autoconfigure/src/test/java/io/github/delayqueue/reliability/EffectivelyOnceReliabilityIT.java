package io.github.delayqueue.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A crash (SIGKILL of an instance in a JVM of its own) after a handler's business commit and before the handler
 * ended: a handler that completes in its transaction (here Spring's {@code @Transactional}) committed its task's
 * completion with its work, so no instance runs it again; a handler that does not runs again once the lease ends, as
 * at-least-once allows. Each writes one row per run to {@code rel_effect}.
 */
@Tag("reliability")
class EffectivelyOnceReliabilityIT {

    private static final String VICTIM = ReliabilityApp.Handlers.CRASH_VICTIM;

    @Test
    void aHandlerThatCompletedInItsTransactionDoesNotRunAgainAfterACrash(@TempDir Path dir) throws Exception {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                "delay.worker.recovery-interval=500ms");
                ChildProcess victim = ChildProcess.start(dir, VICTIM, instances.properties())) {
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            jdbc.execute("CREATE TABLE rel_effect (task_id BIGINT NOT NULL, attempt INT NOT NULL, "
                    + "instance VARCHAR(100) NOT NULL)");
            DelayQueue queue = instances.start("delay.worker.enabled=false").getBean(DelayQueue.class);
            long inTransaction = queue.schedule("rel.commit-then-crash", "a", Duration.ZERO);
            long plain = queue.schedule("rel.write-then-crash", "b", Duration.ZERO);

            // both wrote their row on the victim, and hang there
            await().atMost(60, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS)
                .until(() -> effects(jdbc, inTransaction).size() == 1 && effects(jdbc, plain).size() == 1);
            TaskStatus atTheCrash = queue.find(inTransaction).orElseThrow().status();
            victim.kill(); // SIGKILL

            instances.start(); // the survivor takes back what the victim held once its lease ends
            await().atMost(60, TimeUnit.SECONDS).pollInterval(200, TimeUnit.MILLISECONDS)
                .until(() -> queue.find(plain).orElseThrow().status() == TaskStatus.SUCCEEDED);
            assertThat(effects(jdbc, plain)).as("runs of the handler without a transaction, by instance")
                .hasSize(2).last().asString().doesNotStartWith(VICTIM);
            assertThat(effects(jdbc, inTransaction)).as("runs of the handler that completed in its transaction")
                .singleElement().asString().startsWith(VICTIM);
            assertThat(atTheCrash).as("its task's status when the victim died").isEqualTo(TaskStatus.SUCCEEDED);
            assertThat(queue.find(inTransaction).orElseThrow().attempts()).isOne();
        }
    }

    /** The instances whose runs of the task wrote a row, in order. */
    private static List<String> effects(JdbcTemplate jdbc, long id) {
        return jdbc.queryForList("SELECT instance FROM rel_effect WHERE task_id = ? ORDER BY attempt", String.class,
                id);
    }
}
