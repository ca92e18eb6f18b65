package io.github.delayqueue.reliability;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.testservices.TcpProxy;
import io.github.delayqueue.testservices.TestServices;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The database is killed and restarted under load (issue 16): three instances run a steady stream of tasks through a
 * {@link TcpProxy} that drops every connection and refuses new ones for six seconds, then accepts again. Tasks that
 * fell due while the database was away must start within 1.5 s of its first answer; tasks due after that, within the
 * healthy bound. Both JDBC drivers, both modes: in hybrid mode the instances keep popping due ids from Redis while
 * their claims fail, in jdbc mode they poll the database alone; the dispatcher's back-off and the connection pool's
 * reconnection are on the way in both.
 * <p>
 * The instances' pool gives up on a connection after 250 ms (Hikari's least {@code connection-timeout}), so every
 * claim fails fast and the failures pile up in five seconds as they would in a longer outage with a slower pool (with
 * Hikari's default 30 s a claim waits for the database instead of failing, and only an outage of minutes makes as
 * many failures). What this checks is that, however many failures came before, the first answer is acted on at once.
 * <p>
 * Six seconds, not five: HikariCP reconnects on one thread whose waits double from 10 ms up to 5 s, so its attempts
 * after the first failure come at about 5.1 s and then 10.1 s. An outage of five seconds ends just before the 5.1 s
 * attempt and hides that back-off; one of six seconds ends in its gap, where an engine that waited for the pool would
 * start its first task about four seconds after the database answered (measured: 4.9 s).
 */
@Tag("reliability")
class DatabaseComesBackReliabilityIT {

    private static final int WORKERS = 3;

    private static final long OUTAGE_MILLIS = 6_000;

    /** The promise: a task due while the database was away starts within this of its first answer. */
    private static final long FIRST_ANSWER_BOUND_MILLIS = 1_500;

    /**
     * How late a task may start while the database answers: the README's bound for hybrid mode (tests assert
     * 500 ms), which also covers jdbc mode's 200 ms poll interval for tasks another instance scheduled, doubled: the
     * instances are still working off the tasks of the outage, and a loaded 2-core machine (the full suite beside
     * it) was seen to start one 897 ms late ten seconds after the outage.
     */
    private static final long HEALTHY_BOUND_MILLIS = 1_000;

    /** One task falls due every this often, from a second after scheduling until 5 s after the outage. */
    private static final long SPACING_MILLIS = 25;

    private static final long BEFORE_OUTAGE_MILLIS = 3_000;

    private static final long AFTER_OUTAGE_MILLIS = 5_000;

    static Stream<Arguments> modesAndDrivers() {
        return Stream.of(Arguments.of("hybrid", "mysql"), Arguments.of("hybrid", "mariadb"),
                Arguments.of("jdbc", "mysql"), Arguments.of("jdbc", "mariadb"));
    }

    @ParameterizedTest(name = "{0} mode, {1} driver")
    @MethodSource("modesAndDrivers")
    void tasksDueWhileTheDatabaseWasAwayStartWithinASecondAndAHalfOfItsFirstAnswer(String mode, String driver) {
        ReliabilityApp.Handlers.failureRate = 0;
        Journal journal = new Journal();
        URI server = URI.create(TestServices.endpoints().jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(server.getHost(), server.getPort());
                Instances instances = new Instances(ReliabilityApp.class, journal, "delay.mode=" + mode,
                        "spring.datasource.hikari.connection-timeout=250",
                        "spring.datasource.hikari.validation-timeout=250")) {
            String direct = instances.database().url(driver);
            String proxied = direct.replace(server.getHost() + ":" + server.getPort(), "127.0.0.1:" + proxy.port());
            // the producer reaches the database directly: it stands for the tasks scheduled before the outage
            DelayQueue queue = instances.start("delay.worker.enabled=false", "spring.datasource.url=" + direct)
                .getBean(DelayQueue.class);
            for (int i = 0; i < WORKERS; i++) {
                instances.start("delay.instance-id=worker-" + i, "spring.datasource.url=" + proxied);
            }

            long scheduledAt = System.currentTimeMillis();
            long cutAt = scheduledAt + BEFORE_OUTAGE_MILLIS;
            List<TaskRequest> requests = new ArrayList<>();
            for (long due = 1_000; due < BEFORE_OUTAGE_MILLIS + OUTAGE_MILLIS + AFTER_OUTAGE_MILLIS;
                    due += SPACING_MILLIS) {
                requests.add(TaskRequest.of("rel.work", "d" + due).delay(Duration.ofMillis(due)).build());
            }
            List<Long> ids = queue.scheduleAll(requests);

            pause(cutAt - System.currentTimeMillis());
            proxy.cut();
            cutAt = System.currentTimeMillis();
            pause(cutAt + OUTAGE_MILLIS - System.currentTimeMillis());
            proxy.restore();
            long firstAnswer = System.currentTimeMillis();

            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            try {
                await().atMost(60, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                    .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status <> 'SUCCEEDED'",
                            Integer.class) == 0);
            }
            catch (ConditionTimeoutException ex) {
                // judged below: a task that never started is lost
            }
            judge(journal, ids, mode + " mode, " + driver + " driver", cutAt, firstAnswer);
        }
        finally {
            ReliabilityApp.Handlers.failureRate = 0.10;
        }
    }

    /**
     * A task that should have started before the cut must have, within the healthy bound. One due while the database
     * was away (or too shortly before it went to have started) starts within {@link #FIRST_ANSWER_BOUND_MILLIS} of the
     * first answer. One due after the first answer is held to the healthy bound, counted from when the instances must
     * have come back ({@link #FIRST_ANSWER_BOUND_MILLIS} after the first answer) if it fell due before that.
     */
    private static void judge(Journal journal, List<Long> ids, String run, long cutAt, long firstAnswer) {
        Phase before = new Phase("due before the outage", false);
        Phase during = new Phase("due while the database was away", true);
        Phase after = new Phase("due after its first answer", false);
        long firstStartAfter = Long.MAX_VALUE;
        for (long id : ids) {
            List<Journal.Start> starts = journal.startsOf(id);
            if (starts.isEmpty()) {
                continue; // lost: the verdict below says so
            }
            Journal.Start first = starts.stream().min(Comparator.comparingLong(Journal.Start::startedAt)).orElseThrow();
            long due = first.dueAt();
            long recovered = firstAnswer + FIRST_ANSWER_BOUND_MILLIS;
            long deadline = due + HEALTHY_BOUND_MILLIS < cutAt ? due + HEALTHY_BOUND_MILLIS
                    : due < firstAnswer ? recovered : Math.max(due, recovered) + HEALTHY_BOUND_MILLIS;
            Phase phase = due < cutAt ? before : due < firstAnswer ? during : after;
            phase.add(id, first, deadline, firstAnswer);
            if (first.startedAt() >= firstAnswer) {
                firstStartAfter = Math.min(firstStartAfter, first.startedAt());
            }
        }
        String report = String.format("%s: database away %d ms; first task start %d ms after its first answer%n"
                + "  %s%n  %s%n  %s", run, firstAnswer - cutAt, firstStartAfter - firstAnswer, before, during, after);
        System.out.println("[database-comes-back] " + report.replace("\n", "\n[database-comes-back] "));
        Verdict.assertKept(journal, ids, Long.MAX_VALUE / 2, 0); // none lost, early or twice at once
        assertThat(before.missed + during.missed + after.missed)
            .as("tasks that started later than allowed: by the first answer + %d ms when due while the database was "
                    + "away (or less than %2$d ms before it went); otherwise %2$d ms after the due time, or after the "
                    + "first answer + %1$d ms if that is later%n%3$s", FIRST_ANSWER_BOUND_MILLIS, HEALTHY_BOUND_MILLIS,
                    report)
            .isZero();
    }

    /** Tasks by when they fell due relative to the outage: how late the worst started, and how many too late. */
    private static final class Phase {

        private final String name;

        /** Whether the latest start after the first answer says something (it does for tasks due before it). */
        private final boolean showLatestStart;

        private int count;

        private int missed;

        private long worstLateness = Long.MIN_VALUE;

        private String worstLate = "none";

        private long worstAfterAnswer = Long.MIN_VALUE;

        private String worstAfter = "none";

        private long worstOverLimit = Long.MIN_VALUE;

        private String worstOver = "none";

        Phase(String name, boolean showLatestStart) {
            this.name = name;
            this.showLatestStart = showLatestStart;
        }

        void add(long id, Journal.Start first, long deadline, long firstAnswer) {
            count++;
            if (first.startedAt() > deadline) {
                missed++;
            }
            long lateness = first.startedAt() - first.dueAt();
            String task = "task " + id + " due " + (first.dueAt() - firstAnswer) + " ms from the first answer, on "
                    + first.instance();
            if (lateness > worstLateness) {
                worstLateness = lateness;
                worstLate = task;
            }
            if (first.startedAt() - deadline > worstOverLimit) {
                worstOverLimit = first.startedAt() - deadline;
                worstOver = task;
            }
            long afterAnswer = first.startedAt() - firstAnswer;
            if (afterAnswer > worstAfterAnswer) {
                worstAfterAnswer = afterAnswer;
                worstAfter = task;
            }
        }

        @Override
        public String toString() {
            String latest = showLatestStart ? String.format("; latest start %d ms after the first answer (%s)",
                    worstAfterAnswer, worstAfter) : "";
            String over = missed > 0 ? String.format("; most past its limit: %d ms (%s)", worstOverLimit, worstOver)
                    : "";
            return String.format("%s: %d tasks, %d too late; worst lateness %d ms (%s)%s%s", name, count, missed,
                    worstLateness, worstLate, latest, over);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(Math.max(0, millis));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
