package io.github.delayqueue.runtime;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A paused type is not claimed: paused on every instance through the store, or by this instance's configuration. */
class PausedTypesTest {

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final HandlerRegistry registry = Handlers.registry("a", "b", "c");

    private final PausedTypes paused = new PausedTypes(store, Set.of("c"));

    private final ClaimableTypes claimable = new ClaimableTypes(registry, new TypeLanes(registry), paused);

    @Test
    void aTypePausedInTheStoreIsLeftOutOnceReadAndComesBackWhenResumed() {
        AtomicInteger resumed = new AtomicInteger();
        claimable.onClaimableAgain(resumed::incrementAndGet);
        assertThat(claimable.now()).as("c is paused by configuration").containsExactlyInAnyOrder("a", "b");

        assertThat(store.pause("a", 1_000)).isTrue();
        assertThat(store.pause("a", 2_000)).as("paused already").isFalse();
        assertThat(claimable.now()).as("not read yet").contains("a");
        paused.refresh();
        assertThat(claimable.now()).containsExactly("b");
        assertThat(claimable.room("a")).isZero();
        assertThat(claimable.servedButNotNow()).containsExactlyInAnyOrder("a", "c");
        assertThat(paused.all()).containsExactlyInAnyOrder("a", "c");
        assertThat(resumed).hasValue(0);

        assertThat(store.resume("a")).isTrue();
        paused.refresh();
        assertThat(claimable.now()).containsExactlyInAnyOrder("a", "b");
        assertThat(resumed).as("told, so the overdue tasks are claimed at once").hasValue(1);
        paused.refresh();
        assertThat(resumed).as("once").hasValue(1);
    }
}
