package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class PeriodicJobTest {

    @Test
    void aRunThatThrowsAnErrorDoesNotCancelTheNextRuns() {
        AtomicInteger runs = new AtomicInteger();
        PeriodicJob job = new PeriodicJob(TestScheduler.SHARED, "test job", Duration.ofMillis(20)) {
            @Override
            void runOnce() {
                int run = runs.incrementAndGet();
                if (run == 1) {
                    throw new StackOverflowError("an Error in the first run");
                }
                if (run == 2) {
                    throw new IllegalStateException("an exception in the second");
                }
            }
        };
        job.start();
        try {
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(runs).hasValueGreaterThan(4));
        }
        finally {
            job.stop();
        }
        assertThat(job.isRunning()).isFalse();
        int stopped = runs.get();
        await().during(100, TimeUnit.MILLISECONDS).atMost(1, TimeUnit.SECONDS)
            .untilAsserted(() -> assertThat(runs.get()).isLessThanOrEqualTo(stopped + 1));
    }

    /**
     * A round under way when its job stops may fail as the context closes what it uses (the purge's statement, when
     * the DataSource closes): it is not tried again, so the log must not say it will be, nor warn of a failure.
     */
    @Test
    void aRoundThatFailsOnceItsJobStoppedIsNotLoggedAsAFailureToRetry(CapturedOutput output) throws Exception {
        CountDownLatch inRound = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        List<PeriodicJob> self = new ArrayList<>();
        List<String> failures = new CopyOnWriteArrayList<>();
        TaskEvents events = new TaskEvents() {
            @Override
            public void workFailed(String work) {
                failures.add(work);
            }
        };
        PeriodicJob job = new PeriodicJob(TestScheduler.SHARED, "test purge", Duration.ofMillis(20), events,
                IoLanes.Waits.DATABASE_OR_REDIS) {
            @Override
            void runOnce() {
                runs.incrementAndGet();
                inRound.countDown();
                await().atMost(10, TimeUnit.SECONDS).until(() -> !self.get(0).isRunning());
                throw new IllegalStateException("Connection is closed");
            }
        };
        self.add(job);
        job.start();
        assertThat(inRound.await(10, TimeUnit.SECONDS)).isTrue();
        job.stop();
        assertThat(job.awaitRound(10_000)).as("the round ended").isTrue();

        assertThat(output.getOut()).contains("The test purge was stopping when its round failed")
            .doesNotContain("will retry")
            .doesNotContain(" WARN ");
        assertThat(runs).hasValue(1);
        assertThat(failures).as("failures counted (delay.engine.failures): a stopped job's round is not one").isEmpty();
    }

    /** What a wake-up, a result to write or a free slot does to a loop: its next round comes now, not at its time. */
    @Test
    void aRoundAskedForComesAtOnceRatherThanAtTheInterval() {
        AtomicInteger runs = new AtomicInteger();
        PeriodicJob job = new PeriodicJob(TestScheduler.SHARED, "test loop", Duration.ofHours(1)) {
            @Override
            void runOnce() {
                runs.incrementAndGet();
            }
        };
        job.start();
        try {
            job.runWithin(0);
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(runs).hasValue(1));
            job.runWithin(0);
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(runs).hasValue(2));
        }
        finally {
            job.stop();
        }
    }

    /**
     * Rounds that wait on the database may hold every thread but one: with two threads and two jobs stuck on a hung
     * database, the lease guard (a timer) still runs, and the second job waits for the first instead of a thread.
     */
    @Test
    void roundsThatWaitOnTheDatabaseLeaveAThreadForTheTimers() throws Exception {
        ThreadPoolTaskScheduler scheduler = TestScheduler.create(2);
        CountDownLatch databaseBack = new CountDownLatch(1);
        AtomicInteger stuck = new AtomicInteger();
        AtomicInteger guards = new AtomicInteger();
        Runnable hungStatement = () -> {
            stuck.incrementAndGet();
            try {
                databaseBack.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
        PeriodicJob renewal = PeriodicJob.of(scheduler, "lease renewal", Duration.ofMillis(10), hungStatement);
        PeriodicJob recovery = PeriodicJob.of(scheduler, "lease recovery", Duration.ofMillis(10), hungStatement);
        PeriodicJob guard = PeriodicJob.timer(scheduler, "lease guard", Duration.ofMillis(10), guards::incrementAndGet);
        try {
            renewal.start();
            recovery.start();
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(stuck).hasValue(1));
            guard.start();
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(guards).hasValueGreaterThan(5));
            assertThat(stuck).as("the other job waits for the lane, not on a thread").hasValue(1);

            databaseBack.countDown();
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(stuck).hasValueGreaterThan(3));
        }
        finally {
            databaseBack.countDown();
            renewal.stop();
            recovery.stop();
            guard.stop();
            scheduler.shutdown();
        }
    }

    /**
     * Lease renewal waits on the database alone: with Redis hung under every shared lane of a 4-thread scheduler, it
     * goes on in the lane kept for it, and the lease guard in the last thread.
     */
    @Test
    void leaseRenewalNeverWaitsBehindRoundsHungOnRedis() {
        ThreadPoolTaskScheduler scheduler = TestScheduler.create(4);
        CountDownLatch redisBack = new CountDownLatch(1);
        AtomicInteger hung = new AtomicInteger();
        AtomicInteger renewals = new AtomicInteger();
        AtomicInteger guards = new AtomicInteger();
        Runnable hungCommand = () -> {
            hung.incrementAndGet();
            try {
                redisBack.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
        List<PeriodicJob> onRedis = new ArrayList<>();
        for (String name : List.of("dispatcher", "index writes", "index repair", "migration")) {
            onRedis.add(PeriodicJob.of(scheduler, name, Duration.ofMillis(10), TaskEvents.NONE,
                    IoLanes.Waits.DATABASE_OR_REDIS, hungCommand));
        }
        PeriodicJob renewal = PeriodicJob.of(scheduler, "lease renewal", Duration.ofMillis(10), TaskEvents.NONE,
                IoLanes.Waits.DATABASE, renewals::incrementAndGet);
        PeriodicJob guard = PeriodicJob.timer(scheduler, "lease guard", Duration.ofMillis(10), guards::incrementAndGet);
        try {
            onRedis.forEach(PeriodicJob::start);
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(hung).hasValue(2));
            renewal.start();
            guard.start();
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> {
                assertThat(renewals).hasValueGreaterThan(5);
                assertThat(guards).hasValueGreaterThan(5);
            });
            assertThat(hung).as("two shared lanes, both hung: the other jobs wait for them").hasValue(2);
        }
        finally {
            redisBack.countDown();
            onRedis.forEach(PeriodicJob::stop);
            renewal.stop();
            guard.stop();
            scheduler.shutdown();
        }
    }
}
