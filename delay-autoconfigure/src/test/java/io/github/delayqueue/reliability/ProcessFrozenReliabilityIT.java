package io.github.delayqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An instance in a JVM of its own is frozen with SIGSTOP for longer than its lease while its handlers (longer than
 * the lease) run and more of its tasks wait: a stalled process (GC pause, throttled container, paused VM) cannot stop
 * itself, so another instance takes the tasks over after the lease and runs them. On waking, the frozen instance
 * must interrupt its handlers at once and start none of the waiting tasks, and the fencing token lets a handler's
 * own writes refuse the stale run.
 */
@Tag("reliability")
class ProcessFrozenReliabilityIT {

    private static final long LEASE_MILLIS = 3_000;

    /** What the victim holds: the first running, the other three waiting for the type's one slot there. */
    private static final int TASKS = 4;

    /** How soon after waking the stale runs must have ended: the lease guard runs every lease/10, plus slack. */
    private static final long WAKE_BOUND_MILLIS = 2_000;

    @Test
    void aFrozenInstanceStopsItsStaleRunsAtOnceOnWakingAndTheirWritesAreFenced(@TempDir Path dir) throws Exception {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                "delay.worker.recovery-interval=500ms", "delay.worker.threads=2", "delay.worker.prefetch=4")) {
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            DelayQueue producer = instances.start("delay.worker.enabled=false").getBean(DelayQueue.class);
            producer.schedule("rel.work", "the schema exists", Duration.ofDays(1));
            jdbc.execute("CREATE TABLE rel_fence (task_id BIGINT PRIMARY KEY, token BIGINT NOT NULL)");
            jdbc.execute("CREATE TABLE rel_fence_log (seq BIGINT AUTO_INCREMENT PRIMARY KEY, task_id BIGINT NOT NULL, "
                    + "token BIGINT NOT NULL, instance VARCHAR(128) NOT NULL, accepted INT NOT NULL)");
            try (ChildProcess victim = ChildProcess.start(dir, "victim", instances.properties())) {
                // the long one is due first, so it is the one that runs: among tasks due at the same time the
                // victim may start a short one first, run it and the next before the freeze, and then fewer than
                // four are left to take over (a CI run saw tasks 3 and 4 finish on the victim that way)
                List<TaskRequest> requests = new ArrayList<>();
                requests.add(TaskRequest.of("rel.fenced", 12_000L).delay(Duration.ofMillis(500)).build());
                for (int i = 1; i < TASKS; i++) {
                    requests.add(TaskRequest.of("rel.fenced", 200L).delay(Duration.ofMillis(1_000)).build());
                }
                List<Long> ids = producer.scheduleAll(requests);
                for (long id : ids) {
                    jdbc.update("INSERT INTO rel_fence VALUES (?, 0)", id);
                }
                String longRun = "S " + ids.get(0) + " ";
                // the long handler runs on the victim
                await().atMost(20, TimeUnit.SECONDS).until(() -> {
                    List<String> starts = victim.journalLines().stream().filter(l -> l.startsWith("S ")).toList();
                    return starts.size() == 1 && starts.get(0).startsWith(longRun);
                });
                // and one more waits there, claimed: a type is claimed up to twice its concurrency (1 here), so the
                // other two stay pending for the instance started next
                await().atMost(10, TimeUnit.SECONDS).until(() -> jdbc.queryForObject(
                        "SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING' AND owner LIKE 'victim:%'",
                        Integer.class) == 2);
                instances.start("delay.worker.threads=8");

                victim.freeze();
                long frozenAt = System.currentTimeMillis();
                // the lease (3 s), a recovery round (0.5 s), then one at a time (concurrency = 1): the 12 s task
                // holds the type's slot while the others wait, about 16 s in all; the rest is slack for a loaded
                // machine. On a timeout, the rows say where the tasks were.
                try {
                    await().atMost(60, TimeUnit.SECONDS).until(() -> journal.startedIds().size() == TASKS);
                }
                catch (ConditionTimeoutException ex) {
                    throw new AssertionError("Started on the other instance: " + journal.startedIds() + "; rows "
                            + (System.currentTimeMillis() - frozenAt) + " ms after the freeze: " + jdbc.queryForList(
                                    "SELECT id, status, owner, due_at, lease_until, attempts, claims, started_at "
                                            + "FROM delay_task WHERE task_type = 'rel.fenced'")
                            + whatHoldsRows(jdbc) + "\nthe victim's log before its freeze:\n" + tail(victim.log()),
                            ex);
                }
                sleep(Math.max(0, frozenAt + 2 * LEASE_MILLIS - System.currentTimeMillis()));
                // before the signal: the victim may wake while kill(1) is still exiting, well before resume() returns
                long wokeAt = System.currentTimeMillis();
                victim.resume();

                await().atMost(60, TimeUnit.SECONDS).until(() -> jdbc.queryForObject(
                        "SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED' AND task_type = 'rel.fenced'",
                        Integer.class) == TASKS);
                Journal victimRuns = new Journal();
                victimRuns.merge(victim.journal(), Long.MAX_VALUE);
                assertThat(victimRuns.all()).as("runs on the victim: the long one, none of those that waited")
                    .hasSize(1);
                assertThat(victimRuns.all()).allSatisfy(run -> {
                    assertThat(run.startedAt()).as("started before the freeze").isLessThan(frozenAt);
                    assertThat(run.endedAt()).as("ended (interrupted) at once on waking")
                        .isBetween(wokeAt - 50, wokeAt + WAKE_BOUND_MILLIS);
                });
                for (Journal.Start stale : victimRuns.all()) {
                    List<Integer> accepted = jdbc.queryForList("SELECT accepted FROM rel_fence_log WHERE task_id = ? "
                            + "AND instance LIKE 'victim:%' ORDER BY seq", Integer.class, stale.taskId());
                    assertThat(accepted).as("the stale run's writes: accepted at its start, refused at its end")
                        .containsExactly(1, 0);
                }
                assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM rel_fence_log WHERE instance NOT LIKE 'victim:%' "
                        + "AND accepted = 0", Integer.class)).as("the new runs' refused writes").isZero();
            }
        }
    }

    /**
     * The transactions open on the server and what each connection does: a CI run once saw the victim's two rows stay
     * {@code RUNNING} for a minute past their lease, which lease recovery (it skips locked rows) does only while
     * something holds them.
     */
    private static String whatHoldsRows(JdbcTemplate jdbc) {
        try {
            return "\nopen transactions: " + jdbc.queryForList("SELECT trx_mysql_thread_id, trx_state, trx_started, "
                    + "trx_rows_locked, trx_lock_structs, trx_query FROM information_schema.INNODB_TRX")
                    + "\nconnections: " + jdbc.queryForList("SELECT ID, USER, COMMAND, TIME, STATE, INFO "
                            + "FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'");
        }
        catch (RuntimeException ex) { // a diagnosis that fails must not hide the failure it explains
            return "\n(the open transactions could not be read: " + ex + ")";
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
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
