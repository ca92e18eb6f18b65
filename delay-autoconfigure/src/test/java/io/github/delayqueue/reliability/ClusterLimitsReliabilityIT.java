package io.github.delayqueue.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The cluster-wide limits of a type ({@code @DelayedHandler(clusterConcurrency, clusterStartsPerSecond)}) hold across
 * instances, and while one of them, a JVM of its own, is killed with SIGKILL mid-run: the dead instance's share
 * comes back with its leases, and its tasks run after them. The survivors run in the test's JVM, as in
 * {@link ProcessKilledReliabilityIT}, each with its own engine, pool and connections: four JVMs starting Spring at once
 * took over a minute per mode on a busy 2-core machine, and a limit kept in the database does not care which JVM
 * claims. Judged from the handlers' {@link Journal}s (every start and end, with the task, the instance and the
 * time), not from the queue's own rows: the journal is what a third party behind the limit would see. The handlers
 * are {@link DeployApp.ClusterLimited}'s; settings as in the crash scenarios ({@link CrashLoad}: 4 threads per
 * instance, a 3 s lease).
 */
@Tag("reliability")
class ClusterLimitsReliabilityIT {

    private static final String CAPPED = "limit.capped";

    private static final String FREE = "limit.free";

    private static final String PACED = "limit.paced";

    /** {@code limit.capped}'s {@code clusterConcurrency}. */
    private static final int CAPPED_LIMIT = 3;

    /** {@code limit.paced}'s {@code clusterStartsPerSecond}. */
    private static final int PACED_LIMIT = 5;

    private static final int TASKS_PER_TYPE = 120;

    private static final int PACED_TASKS = 40;

    private static final String VICTIM = "victim";

    private static final List<String> SURVIVORS = List.of("limits-b", "limits-c", "limits-d");

    /**
     * Four instances in both modes, 120 tasks of {@code limit.capped} ({@code clusterConcurrency = 3}) and 120 of
     * {@code limit.free} (no limit), all due within a second, each sleeping 150-300 ms (about 9 s of
     * {@code limit.capped} at its limit, three leases); one instance is killed while it runs a {@code limit.capped}
     * task. Four instances of 4 threads could run 16 at once: only the limit keeps {@code limit.capped} at 3, so the
     * test fails without it.
     */
    @ParameterizedTest
    @ValueSource(strings = { "jdbc", "hybrid" })
    void atMostClusterConcurrencyRunAcrossInstancesAndAKilledInstanceGivesItsShareBack(String mode,
            @TempDir Path dir) throws Exception {
        Journal journal = new Journal();
        List<String> properties = new ArrayList<>(List.of(CrashLoad.PROPERTIES));
        properties.add("delay.mode=" + mode);
        properties.add("deploy.limits=true");
        ExecutorService starting = Executors.newSingleThreadExecutor();
        try (Instances instances = new Instances(DeployApp.class, journal, properties.toArray(String[]::new))) {
            // the first survivor migrates the table; the victim's JVM starts meanwhile, the other survivors too
            DelayQueue producer = instances.start("delay.instance-id=" + SURVIVORS.get(0)).getBean(DelayQueue.class);
            Future<ChildProcess> starts = starting.submit(() -> ChildProcess.start(dir, VICTIM, DeployApp.class,
                    instances.properties()));
            for (String survivor : SURVIVORS.subList(1, SURVIVORS.size())) {
                instances.start("delay.instance-id=" + survivor);
            }
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            try (ChildProcess victim = starts.get()) {
                killMidRun(producer, jdbc, victim, journal, mode);
            }
        }
        finally {
            starting.shutdownNow();
        }
    }

    private static void killMidRun(DelayQueue producer, JdbcTemplate jdbc, ChildProcess victim, Journal journal,
            String mode) throws Exception {
        Map<Long, String> typeOf = new HashMap<>();
        for (String type : List.of(CAPPED, FREE)) {
            List<TaskRequest> requests = new ArrayList<>();
            for (int i = 0; i < TASKS_PER_TYPE; i++) {
                long millis = ThreadLocalRandom.current().nextLong(150, 301);
                long delay = ThreadLocalRandom.current().nextLong(500, 1_000);
                requests.add(TaskRequest.of(type, millis).delay(Duration.ofMillis(delay)).build());
            }
            producer.scheduleAll(requests).forEach(id -> typeOf.put(id, type));
        }
        Set<Long> capped = typeOf.entrySet().stream().filter(e -> e.getValue().equals(CAPPED))
            .map(Map.Entry::getKey).collect(Collectors.toSet());

        // killed while it runs a limit.capped task, so its share is held by a dead instance until the lease ends
        await("the victim to run a " + CAPPED + " task").atMost(30, TimeUnit.SECONDS)
            .pollInterval(5, TimeUnit.MILLISECONDS)
            .until(() -> runsOneOf(victim, capped));
        victim.kill(); // SIGKILL
        long killedAt = System.currentTimeMillis();

        await("every task done").atMost(2, TimeUnit.MINUTES).pollInterval(500, TimeUnit.MILLISECONDS)
            .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                    Integer.class) == typeOf.size());
        // a run the kill cut short ended when the victim died
        journal.merge(victim.journal(), killedAt);
        List<Journal.Start> cappedRuns = runsOf(journal, typeOf, CAPPED);
        List<Journal.Start> freeRuns = runsOf(journal, typeOf, FREE);
        Peak cappedPeak = Peak.of(cappedRuns);
        Peak freePeak = Peak.of(freeRuns);
        long cappedLastEnd = lastEnd(cappedRuns);
        long freeLastEnd = lastEnd(freeRuns);
        System.out.println("[cluster limits, " + mode + "] " + typeOf.size() + " tasks, " + journal.totalStarts()
                + " starts (" + journal.all().stream().filter(s -> s.instance().startsWith(VICTIM)).count()
                + " on the victim); most running at once: " + CAPPED + " " + cappedPeak + ", " + FREE + " "
                + freePeak + "; last end after the kill: " + CAPPED + " " + (cappedLastEnd - killedAt) + " ms, "
                + FREE + " " + (freeLastEnd - killedAt) + " ms");

        // (a) the limit held at every instant, across the instances, the killed one included
        assertThat(cappedPeak.running()).as("most " + CAPPED + " handlers running at once: " + cappedPeak)
            .isLessThanOrEqualTo(CAPPED_LIMIT);
        // (b) and was reached, so the handlers were not merely too slow to exceed it
        assertThat(cappedPeak.running()).as("the limit reached at some point").isEqualTo(CAPPED_LIMIT);
        // (c) every task succeeded, the killed instance's too (after its lease), none ran twice to completion
        // but where the kill cut the first run's result short (at-least-once)
        assertThat(journal.all()).as("runs on the killed instance")
            .anyMatch(s -> s.instance().startsWith(VICTIM));
        assertSucceededOnce(journal, typeOf.keySet(), killedAt);
        Verdict.assertKept(journal, typeOf.keySet(), Duration.ofMinutes(2).toMillis(), 0);
        // (d) the type without a limit was not held by the other's
        assertThat(freePeak.running() > CAPPED_LIMIT || freeLastEnd < cappedLastEnd - 5_000)
            .as(FREE + " ran more than " + CAPPED_LIMIT + " at once (" + freePeak + ") or finished well before "
                    + CAPPED + " (" + (cappedLastEnd - freeLastEnd) + " ms before)")
            .isTrue();
    }

    /**
     * Two instances, 40 tasks of {@code limit.paced} ({@code clusterStartsPerSecond = 5}) due at once, 50 ms each: two
     * instances of 8 threads would start them all within a second without the limit.
     */
    @ParameterizedTest
    @ValueSource(strings = { "jdbc", "hybrid" })
    void atMostClusterStartsPerSecondStartAcrossInstances(String mode) {
        Journal journal = new Journal();
        try (Instances instances = new Instances(DeployApp.class, journal, "delay.mode=" + mode,
                "deploy.limits=true")) {
            DelayQueue queue = instances.start().getBean(DelayQueue.class);
            instances.start();
            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            List<TaskRequest> requests = new ArrayList<>();
            for (int i = 0; i < PACED_TASKS; i++) {
                requests.add(TaskRequest.of(PACED, 50L).delay(Duration.ofSeconds(1)).build());
            }
            List<Long> ids = queue.scheduleAll(requests);
            await("every task done").atMost(1, TimeUnit.MINUTES).pollInterval(200, TimeUnit.MILLISECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == ids.size());

            List<Journal.Start> runs = journal.all();
            Map<Long, Long> startsPerSecond = runs.stream()
                .collect(Collectors.groupingBy(s -> s.startedAt() / 1_000, TreeMap::new, Collectors.counting()));
            long dueAt = runs.stream().mapToLong(Journal.Start::dueAt).min().orElseThrow();
            long lastStart = runs.stream().mapToLong(Journal.Start::startedAt).max().orElseThrow();
            System.out.println("[cluster starts per second, " + mode + "] " + runs.size() + " starts, per second: "
                    + startsPerSecond.values() + ", last start " + (lastStart - dueAt) + " ms after the due time");

            // Starts are counted when a claim takes a task, per second of the queue's clock, so the limit bounds
            // claims, not starts. A start in one second of the handlers' clock was claimed in that second or in the
            // one before: claimed late in a second it starts a moment later, in the next, and the claim-ahead (25 ms)
            // claims the first ones in the second before their due time (a hybrid run here saw 10 in its first
            // second, then 5 in each). So up to twice the limit, as long as no start comes a whole second after its
            // claim. The queue's clock is the database's, on this host, under a millisecond off the handlers'.
            assertThat(startsPerSecond.values()).as("starts per whole second, by the handlers' clocks")
                .allSatisfy(count -> assertThat(count).isLessThanOrEqualTo(2L * PACED_LIMIT));
            // 40 claims at 5 a second take 8 distinct seconds of the queue's clock, the first of which may be the
            // second before the due time (the claim-ahead): the last claim, and so the last start, is more than 5 s
            // after the due time; 250 ms of slack for the clocks
            assertThat(lastStart - dueAt).as("the last start after the due time, in ms")
                .isGreaterThanOrEqualTo((PACED_TASKS / PACED_LIMIT - 3) * 1_000L - 250);
            assertThat(journal.distinctTasks()).as("tasks started").isEqualTo(PACED_TASKS);
        }
    }

    /** Whether the child has started one of {@code tasks} and not ended it, by its journal. */
    private static boolean runsOneOf(ChildProcess child, Set<Long> tasks) throws Exception {
        List<String> lines = child.journalLines();
        Set<String> ended = lines.stream().filter(line -> line.startsWith("E "))
            .map(line -> line.split(" ")[1] + " " + line.split(" ")[2]).collect(Collectors.toSet());
        return lines.stream().filter(line -> line.startsWith("S "))
            .map(line -> line.split(" "))
            .anyMatch(f -> tasks.contains(Long.parseLong(f[1])) && !ended.contains(f[1] + " " + f[3]));
    }

    private static List<Journal.Start> runsOf(Journal journal, Map<Long, String> typeOf, String type) {
        return journal.all().stream().filter(s -> type.equals(typeOf.get(s.taskId()))).toList();
    }

    private static long lastEnd(List<Journal.Start> runs) {
        return runs.stream().mapToLong(Journal.Start::endedAt).max().orElseThrow();
    }

    /**
     * Each task succeeded once: it completed on exactly one of the survivors, or else on the victim before the
     * kill; a completion on the victim may be followed by one on a survivor (its result may not have been written).
     */
    private static void assertSucceededOnce(Journal journal, Set<Long> ids, long killedAt) {
        List<String> problems = new ArrayList<>();
        for (long id : ids) {
            List<Journal.Start> completed = journal.startsOf(id).stream().filter(s -> !s.interrupted())
                .filter(s -> !s.instance().startsWith(VICTIM) || s.endedAt() < killedAt).toList();
            long onSurvivors = completed.stream().filter(s -> !s.instance().startsWith(VICTIM)).count();
            if (completed.isEmpty() || onSurvivors > 1) {
                problems.add("task " + id + " completed " + completed.size() + " times, " + onSurvivors
                        + " on survivors");
            }
        }
        assertThat(problems).as("tasks not completed exactly once").isEmpty();
    }

    /** The most handlers running at one instant, and the first instant they did. */
    private record Peak(int running, long at) {

        /**
         * A sweep over the runs' starts and ends; at one millisecond an end comes before a start, since a task that
         * ends frees its place before another can be claimed into it.
         */
        static Peak of(List<Journal.Start> runs) {
            List<long[]> events = new ArrayList<>();
            for (Journal.Start run : runs) {
                events.add(new long[] { run.startedAt(), 1 });
                events.add(new long[] { run.endedAt(), -1 });
            }
            events.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
            int running = 0;
            Peak peak = new Peak(0, 0);
            for (long[] event : events) {
                running += (int) event[1];
                if (running > peak.running()) {
                    peak = new Peak(running, event[0]);
                }
            }
            return peak;
        }

        @Override
        public String toString() {
            return running + " (first at " + at + ")";
        }
    }
}
