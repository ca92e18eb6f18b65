package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.runtime.HeldTasks.Held;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The lease ledger on a stopped clock: what it renews, gives up, drops and interrupts. */
class HeldTasksTest {

    private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    /** A 30 s lease: renewals keep it more than 10 s ahead, so 10 s or less left means they failed. */
    private final HeldTasks held = new HeldTasks(new QueueClock(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC)),
            Duration.ofSeconds(30));

    private static ClaimedTask task(long id) {
        return new ClaimedTask(id, "t", null, "null", 0, 1, null, 0, 1);
    }

    @Test
    void aLeaseAboutToEndGivesUpTheUnstartedTaskAndInterruptsTheRunningOne() throws Exception {
        Held waiting = held.add(task(1), NOW + 5_000);
        Held running = held.add(task(2), NOW + 5_000);
        Held renewed = held.add(task(3), NOW + 30_000);
        assertThat(running.start()).isTrue();
        Thread handler = new Thread(() -> {
            try {
                Thread.sleep(10_000);
            }
            catch (InterruptedException ex) {
                // what the guard does to it
            }
        });
        handler.start();
        running.runOn(handler, System.nanoTime());

        held.guardLeases();

        handler.join(5_000);
        assertThat(handler.isAlive()).as("the handler was interrupted").isFalse();
        assertThat(running.wasInterrupted()).isTrue();
        assertThat(waiting.start()).as("a task given up never starts").isFalse();
        assertThat(held.takeGivenUp()).extracting(ClaimedTask::id).containsExactly(1L);
        assertThat(held.claims()).as("no longer renewed: the given-up task")
            .containsExactlyInAnyOrder(new ClaimId(2, 1), new ClaimId(3, 1));
        assertThat(held.holds(1)).as("still known, so it is not adopted as an orphan").isTrue();
        assertThat(renewed.start()).isTrue();
    }

    @Test
    void aLostLeaseDropsTheUnstartedTaskAtOnce() {
        held.add(task(1), NOW + 30_000);
        held.add(task(2), NOW + 30_000);
        held.leasesRenewed(Set.of(new ClaimId(2, 1)), NOW + 60_000);

        held.leasesLost(List.of(new ClaimId(1, 1)));

        assertThat(held.holds(1)).isFalse();
        assertThat(held.claims()).containsExactly(new ClaimId(2, 1));
        assertThat(held.takeGivenUp()).as("nothing to hand back: another instance has it").isEmpty();
    }

    @Test
    void stoppingReleasesWhatHasNotStartedAndForgetsIt() {
        held.add(task(1), NOW + 30_000);
        held.add(task(2), NOW + 30_000).start();

        assertThat(held.releaseUnstarted()).extracting(ClaimedTask::id).containsExactly(1L);
        assertThat(held.count()).isEqualTo(1);
        held.forget(List.of(new ClaimId(2, 1)));
        assertThat(held.count()).isZero();
    }
}
