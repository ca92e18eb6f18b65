package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.EngineAccess;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.testservices.TcpProxy;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Who holds a claim, and what an attempt is: a claim belongs to one process and is changed only by it; an attempt
 * counts once its handler has started; no task starts once its lease has ended; every run ends in a write.
 */
@Tag("reliability")
class ClaimsReliabilityIT {

    private static final String LEASE = "delay.worker.lease=3s";

    private static final String RECOVERY = "delay.worker.recovery-interval=500ms";

    private static int count(JdbcTemplate jdbc, String where, Object... args) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE " + where, Integer.class, args);
    }

    /** Eight never-retried tasks of a type that runs one at a time: the first runs long, the rest wait. */
    private static List<Long> scheduleSingles(DelayQueue queue) {
        List<TaskRequest> requests = new ArrayList<>();
        requests.add(TaskRequest.of("rel.single", 60_000L).delay(Duration.ofMillis(300)).build());
        for (int i = 1; i < 8; i++) {
            requests.add(TaskRequest.of("rel.single", 100L).delay(Duration.ofMillis(400)).build());
        }
        return queue.scheduleAll(requests);
    }

    /**
     * An instance crashes holding claimed tasks that never started (waiting for their type's one slot). With one
     * attempt allowed they used to be dead-lettered by the survivor's lease recovery without ever having run.
     */
    @Test
    void tasksClaimedButNeverStartedGoBackUncountedWhenTheirInstanceCrashes() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, LEASE, RECOVERY,
                "delay.worker.threads=2", "delay.worker.prefetch=8")) {
            ConfigurableApplicationContext victim = instances.start();
            String owner = victim.getBean(DelayQueueRuntime.class).status().instanceId();
            List<Long> ids = scheduleSingles(victim.getBean(DelayQueue.class));
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            journal.awaitStarted(ids.get(0), 15);
            await().atMost(10, TimeUnit.SECONDS)
                .until(() -> count(jdbc, "status = 'RUNNING' AND owner = ?", owner) >= 2); // one runs, one waits

            EngineAccess.crash(victim.getBean(DelayQueueRuntime.class));
            instances.start();

            await().atMost(60, TimeUnit.SECONDS).until(() -> count(jdbc, "status IN ('SUCCEEDED', 'FAILED')") == 8);
            // the long task did start on the victim: its one attempt is spent, that is right
            assertThat(jdbc.queryForList("SELECT id FROM delay_task WHERE status = 'FAILED'", Long.class))
                .containsExactly(ids.get(0));
            assertThat(count(jdbc, "status = 'SUCCEEDED' AND attempts = 1")).isEqualTo(7);
            for (long id : ids.subList(1, 8)) {
                assertThat(journal.startsOf(id)).as("starts of task %d", id).hasSize(1)
                    .allSatisfy(start -> assertThat(start.attempt()).isEqualTo(1));
            }
        }
    }

    /**
     * The same when the instance is cut off from the database instead: it gives its unstarted tasks up before
     * their lease ends, and the others run them, uncounted.
     */
    @Test
    void tasksClaimedButNeverStartedGoBackUncountedWhenTheirInstanceLosesTheDatabase() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, LEASE, RECOVERY,
                "delay.worker.threads=2", "delay.worker.prefetch=8", "delay.worker.shutdown-timeout=1s",
                "spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500");
                TcpProxy proxy = instances.database().newProxy()) {
            ConfigurableApplicationContext victim = instances
                .start("spring.datasource.url=" + instances.database().urlThrough(proxy));
            String owner = victim.getBean(DelayQueueRuntime.class).status().instanceId();
            List<Long> ids = scheduleSingles(victim.getBean(DelayQueue.class));
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            journal.awaitStarted(ids.get(0), 15);
            await().atMost(10, TimeUnit.SECONDS)
                .until(() -> count(jdbc, "status = 'RUNNING' AND owner = ?", owner) >= 2); // one runs, one waits

            proxy.cut();
            instances.start();

            await().atMost(60, TimeUnit.SECONDS)
                .until(() -> count(jdbc, "status = 'SUCCEEDED' AND task_type = 'rel.single'") == 7);
            // A task the victim started just before it lost the database (its lease still had more than a third to
            // go) may run again elsewhere, since its start could not be written: at least once, never at once.
            for (long id : ids.subList(1, 8)) {
                assertThat(journal.startsOf(id)).as("starts of task %d", id).isNotEmpty()
                    .allSatisfy(start -> assertThat(start.attempt()).isEqualTo(1));
            }
            Verdict.assertKept(journal, ids.subList(1, 8), 60_000, 0);
            proxy.restore();
        }
    }

    /**
     * Two live processes configured with the same {@code delay.instance-id}: a failed claim on one of them used to
     * make it adopt, as an orphan of its own, the task the other was running, and run it at the same time.
     */
    @Test
    void twoProcessesWithTheSameInstanceIdNeverTakeEachOthersClaims() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.mode=jdbc",
                "delay.worker.lease=10s", RECOVERY, "delay.instance-id=order-service");
                TcpProxy proxy = instances.database().newProxy()) {
            ConfigurableApplicationContext runner = instances.start("delay.worker.threads=1",
                    "delay.worker.prefetch=0");
            long id = runner.getBean(DelayQueue.class).schedule("rel.sleep", 6_000L, Duration.ZERO);
            journal.awaitStarted(id, 15);
            ConfigurableApplicationContext other = instances
                .start("spring.datasource.url=" + instances.database().urlThrough(proxy));
            DelayQueue otherQueue = other.getBean(DelayQueue.class);
            long warmUp = otherQueue.schedule("rel.work", "warm-up", Duration.ZERO); // its claim connection is up
            journal.awaitStarted(warmUp, 15);

            proxy.dropConnections(); // the other's next claim fails
            long next = runner.getBean(DelayQueue.class).schedule("rel.work", "after the failed claim",
                    Duration.ofMillis(200)); // only the other has a free thread
            journal.awaitStarted(next, 30);

            await().atMost(30, TimeUnit.SECONDS).until(() -> journal.startsOf(id).stream()
                .allMatch(start -> start.endedAt() != Long.MAX_VALUE));
            assertThat(journal.startsOf(id)).as("runs of the long task").hasSize(1);
            assertThat(runner.getBean(DelayQueueRuntime.class).status().instanceId())
                .startsWith("order-service:")
                .isNotEqualTo(other.getBean(DelayQueueRuntime.class).status().instanceId());
        }
    }

    /**
     * Another instance took the task over (what its lease recovery and claim do after this one stalled): the next
     * renewal finds the claim gone and the handler is interrupted at once, instead of running to its end beside
     * the new owner's run; its result is not written over the new claim.
     */
    @Test
    void aHandlerWhoseClaimWasTakenOverIsInterruptedAtTheNextRenewal() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, LEASE, RECOVERY)) {
            DelayQueue queue = instances.start().getBean(DelayQueue.class);
            long id = queue.schedule("rel.sleep", 9_000L, Duration.ZERO);
            journal.awaitStarted(id, 15);
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());

            long takenAt = System.currentTimeMillis();
            jdbc.update("UPDATE delay_task SET owner = 'intruder', claims = claims + 1 WHERE id = ?", id);

            await().atMost(8, TimeUnit.SECONDS)
                .until(() -> journal.startsOf(id).get(0).endedAt() != Long.MAX_VALUE);
            // renewals run every lease/3 (1 s here); the margin is for a loaded machine
            assertThat(journal.startsOf(id).get(0).endedAt() - takenAt).isLessThan(3_000);
            sleep(1_500); // time for a wrong write to land, if one were made
            assertThat(jdbc.queryForObject("SELECT owner FROM delay_task WHERE id = ? AND status = 'RUNNING'",
                    String.class, id)).isEqualTo("intruder");
            assertThat(journal.startsOf(id)).hasSize(1);
        }
    }

    /**
     * A claim whose answer comes back after its lease ended (here the database takes 4 s over it, with a 3 s
     * lease): the task must not start on that instance, where another instance's recovery may already run it.
     */
    @Test
    void aClaimAnsweredAfterItsLeaseEndedStartsNothing() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.mode=jdbc", LEASE, RECOVERY)) {
            ConfigurableApplicationContext producer = instances.start("delay.worker.enabled=false");
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            jdbc.execute("CREATE TABLE slow_claims (n INT NOT NULL) ENGINE = MyISAM");
            jdbc.execute("INSERT INTO slow_claims VALUES (0)");
            jdbc.execute("""
                    CREATE TRIGGER slow_claim BEFORE UPDATE ON delay_task FOR EACH ROW
                    BEGIN
                      IF NEW.status = 'RUNNING' AND OLD.status <> 'RUNNING' AND NEW.task_type = 'rel.sleep'
                          AND (SELECT n FROM slow_claims) = 0 THEN
                        UPDATE slow_claims SET n = 1;
                        DO SLEEP(4);
                      END IF;
                    END""");
            instances.start();
            instances.start();
            long id = producer.getBean(DelayQueue.class).schedule("rel.sleep", 2_000L, Duration.ZERO);

            await().atMost(30, TimeUnit.SECONDS).until(() -> count(jdbc, "id = ? AND status = 'SUCCEEDED'", id) == 1);
            assertThat(jdbc.queryForObject("SELECT n FROM slow_claims", Integer.class)).as("a claim was slow")
                .isEqualTo(1);
            assertThat(journal.startsOf(id)).as("starts").hasSize(1);
        }
    }

    /** A listener that throws when a task starts: the run still ends in a written result, nothing stays RUNNING. */
    @Test
    void aListenerThatThrowsNeverLeavesATaskRunning() {
        Journal journal = new Journal();
        AtomicBoolean thrown = new AtomicBoolean();
        TaskEvents throwOnce = new TaskEvents() {
            @Override
            public void started(TaskContext task, long latenessMillis) {
                if (thrown.compareAndSet(false, true)) {
                    throw new IllegalStateException("a listener bug");
                }
            }
        };
        try (Instances instances = new Instances(ReliabilityApp.class, journal, LEASE, RECOVERY)) {
            ConfigurableApplicationContext context = instances
                .start(ctx -> ctx.getBeanFactory().registerSingleton("throwOnce", throwOnce));
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ids.add(context.getBean(DelayQueue.class).schedule("rel.work", "t" + i, Duration.ZERO));
            }
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            await().atMost(30, TimeUnit.SECONDS).until(() -> count(jdbc, "status = 'SUCCEEDED'") == 5);
            assertThat(thrown).isTrue();
            context.close();
            assertThat(count(jdbc, "status = 'RUNNING'")).isZero();
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
