package io.github.delayqueue.runtime;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.TypeLimit;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A type whose cluster-wide limit a claim reached is left out of the claims until a task of it ends here or the
 * recheck comes, and the dispatcher is told to wake for either.
 */
class ClaimableTypesAtClusterLimitTest {

    private final AtomicLong clock = new AtomicLong(10_500);

    private final HandlerRegistry registry = new HandlerRegistry();

    private final TypeLanes lanes = new TypeLanes(registry);

    private final ClusterLimits limits = new ClusterLimits(registry, clock::get, 200);

    private final ClaimableTypes claimable;

    ClaimableTypesAtClusterLimitTest() {
        registry.register(limited("running", 2, 0));
        registry.register(limited("paced", 0, 5));
        registry.register(limited("free", 0, 0));
        claimable = new ClaimableTypes(registry, lanes, new PausedTypes(new InMemoryTaskStore(), Set.of()), limits);
    }

    @Test
    void aClaimCarriesTheLimitsOfTheLimitedTypesOnly() {
        ClaimLimits claim = claimable.limits(Set.of("running", "paced", "free"));
        assertThat(claim.of(Set.of("running", "paced", "free"))).containsOnlyKeys("running", "paced")
            .containsEntry("running", new TypeLimit(2, 0)).containsEntry("paced", new TypeLimit(0, 5));
        assertThat(claimable.limits(Set.of("free"))).isSameAs(ClaimLimits.none());
    }

    @Test
    void aTypeAtItsLimitIsLeftOutUntilTheRecheckOrUntilATaskOfItEndsHere() {
        AtomicInteger woken = new AtomicInteger();
        claimable.onClaimableAgain(woken::incrementAndGet);
        claimable.limits(Set.of("running", "paced")).reached("running");
        assertThat(claimable.now()).containsExactlyInAnyOrder("paced", "free");
        assertThat(claimable.room("running")).isZero();
        assertThat(claimable.nextRecheck()).as("the poll interval later").isEqualTo(10_700);
        assertThat(claimable.atClusterLimit()).containsExactly("running");

        clock.set(10_700);
        assertThat(claimable.now()).contains("running");
        assertThat(claimable.atClusterLimit()).isEmpty();
        assertThat(claimable.nextRecheck()).isEqualTo(Long.MAX_VALUE);

        claimable.limits(Set.of("running")).reached("running");
        lanes.held("running");
        lanes.done("running");
        assertThat(claimable.now()).as("ended here, its result not written: still counted running")
            .doesNotContain("running");
        claimable.written();
        assertThat(claimable.now()).as("a slot of it freed here").contains("running");
        assertThat(woken).as("the dispatcher told").hasValue(1);
        lanes.held("running");
        lanes.done("running");
        claimable.written();
        assertThat(woken).as("not for a type that was not at its limit").hasValue(1);
    }

    @Test
    void aTypeAtItsRateIsLeftOutUntilTheNextSecond() {
        clock.set(10_900);
        claimable.limits(Set.of("paced")).reached("paced");
        assertThat(claimable.nextRecheck()).isEqualTo(11_000);
        assertThat(claimable.now()).doesNotContain("paced");
        clock.set(11_000);
        assertThat(claimable.now()).contains("paced");
    }

    private static TaskHandler limited(String type, int clusterConcurrency, int clusterStartsPerSecond) {
        return Handlers.handler(type, new HandlerSettings(null, null, 0, false, null, clusterConcurrency,
                clusterStartsPerSecond));
    }
}
