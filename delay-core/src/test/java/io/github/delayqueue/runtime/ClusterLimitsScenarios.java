package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cluster-wide limits ({@code @DelayedHandler(clusterConcurrency, clusterStartsPerSecond)}) held by several
 * instances on one store a subclass gives ({@link #instance()}), in this process: what runs of a limited type at once
 * across them never passes its limit, and reaches it; a type without a limit beside it is not held back; a start
 * rate spreads a backlog over the seconds it needs. {@code ClusterLimitsReliabilityIT} adds child JVMs and a kill.
 */
abstract class ClusterLimitsScenarios {

    static final Duration PATIENCE = Duration.ofSeconds(60);

    private final List<DelayQueueRuntime> runtimes = new ArrayList<>();

    /** A builder of another instance on the same store (and index) as the others of this test. */
    abstract DelayQueueRuntimeBuilder instance();

    DelayQueueRuntime start(Object handlers) {
        return start(instance().handlers(handlers));
    }

    DelayQueueRuntime start(DelayQueueRuntimeBuilder instance) {
        DelayQueueRuntime runtime = instance
            .pollInterval(Duration.ofMillis(100))
            .shutdownTimeout(Duration.ofSeconds(5))
            .build();
        runtimes.add(runtime);
        runtime.start();
        return runtime;
    }

    @AfterEach
    void close() {
        runtimes.forEach(DelayQueueRuntime::close);
    }

    @Test
    void aLimitOfRunningTasksHoldsAcrossInstancesAndLeavesOtherTypesAlone() {
        Journal journal = new Journal();
        for (int i = 0; i < 3; i++) {
            start(new Limited(journal));
        }
        DelayQueue queue = runtimes.get(0).queue();
        for (int i = 0; i < 24; i++) {
            queue.schedule("limits.limited", "l" + i, Duration.ZERO);
            queue.schedule("limits.free", "f" + i, Duration.ZERO);
        }

        await().atMost(PATIENCE).untilAsserted(() -> assertThat(journal.finished).hasValue(48));
        assertThat(journal.most("limits.limited")).as("most running at once across the instances, limit 2")
            .isEqualTo(2);
        assertThat(journal.most("limits.free")).as("the type without a limit beside it").isGreaterThan(2);
    }

    @Test
    void aLimitOfStartsPerSecondSpreadsABacklogOverTheSecondsItNeeds() {
        Journal journal = new Journal();
        start(new Paced(journal));
        start(new Paced(journal));

        assertThat(startsOfABacklogOfTwelve(journal)).as("from the first start to the last, ms").isGreaterThan(500);
    }

    /**
     * The same with the second instance's clock 300 ms ahead of the first's (not aligned to the database's): each
     * counts its starts in the seconds of its own clock, and a claim of the one behind must not start afresh a second
     * the one ahead has left (which let 12 start in 144 ms on two instances whose clocks differed by little).
     */
    @Test
    void aLimitOfStartsPerSecondHoldsBetweenInstancesWhoseClocksDiffer() {
        Journal journal = new Journal();
        start(new Paced(journal));
        start(instance().handlers(new Paced(journal)).databaseClockAlignment(null)
            .clock(Clock.offset(Clock.systemUTC(), Duration.ofMillis(300))));

        assertThat(startsOfABacklogOfTwelve(journal)).as("from the first start to the last, ms").isGreaterThan(500);
    }

    /**
     * Schedules 12 {@code limits.paced} tasks due now and returns the milliseconds from their first start to their
     * last. 12 at 4 a second take three seconds' windows: the first claimed in one, the last in a third, over 1 s
     * apart on the clock that counts them. The starts are timed here, a dispatch after each claim: a first start
     * dispatched later than the last (a loaded machine) read 995 ms. Unlimited, all 12 start within tens of ms.
     */
    private long startsOfABacklogOfTwelve(Journal journal) {
        DelayQueue queue = runtimes.get(0).queue();
        for (int i = 0; i < 12; i++) {
            queue.schedule("limits.paced", "p" + i, Duration.ZERO);
        }
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(journal.finished).hasValue(12));
        List<Long> starts = journal.starts.stream().sorted().toList();
        return starts.get(starts.size() - 1) - starts.get(0);
    }

    /** What ran: the most running at once per type, each start's time, how many ended. */
    static final class Journal {

        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

        final Map<String, AtomicInteger> most = new ConcurrentHashMap<>();

        final List<Long> starts = new CopyOnWriteArrayList<>();

        final AtomicInteger finished = new AtomicInteger();

        void run(String type, long millis) throws InterruptedException {
            starts.add(System.currentTimeMillis());
            int now = running.computeIfAbsent(type, t -> new AtomicInteger()).incrementAndGet();
            most.computeIfAbsent(type, t -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            try {
                Thread.sleep(millis);
            }
            finally {
                running.get(type).decrementAndGet();
                finished.incrementAndGet();
            }
        }

        int most(String type) {
            return most.getOrDefault(type, new AtomicInteger()).get();
        }
    }

    static final class Limited {

        private final Journal journal;

        Limited(Journal journal) {
            this.journal = journal;
        }

        @DelayedHandler(type = "limits.limited", clusterConcurrency = "2")
        void limited(String payload) throws InterruptedException {
            journal.run("limits.limited", 60);
        }

        @DelayedHandler(type = "limits.free")
        void free(String payload) throws InterruptedException {
            journal.run("limits.free", 60);
        }
    }

    static final class Paced {

        private final Journal journal;

        Paced(Journal journal) {
            this.journal = journal;
        }

        @DelayedHandler(type = "limits.paced", clusterStartsPerSecond = "4")
        void paced(String payload) throws InterruptedException {
            journal.run("limits.paced", 1);
        }
    }
}
