package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.runtime.HeldTasks.Held;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A type's concurrency: at most that many run, the rest wait in claim order; other types are not held up. */
class TypeLanesTest {

    private static Held held(long id, String type) {
        return new Held(new ClaimedTask(id, type, null, "null", 0, 1, null, 0, 1), Long.MAX_VALUE);
    }

    @Test
    void aTypeAtItsLimitQueuesInClaimOrder() {
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(Handlers.handler("one", 1));
        TypeLanes lanes = new TypeLanes(registry);
        Held first = held(1, "one");
        Held second = held(2, "one");
        Held third = held(3, "one");

        assertThat(lanes.offer(first)).isSameAs(first);
        assertThat(lanes.offer(second)).as("the type runs one at a time").isNull();
        assertThat(lanes.offer(third)).isNull();
        Held other = held(4, "unlimited");
        assertThat(lanes.offer(other)).as("a type without a limit, or without a handler").isSameAs(other);

        assertThat(lanes.next("one")).isSameAs(second);
        assertThat(lanes.next("one")).isSameAs(third);
        assertThat(lanes.next("one")).as("none waits: the lane has room again").isNull();
        Held fifth = held(5, "one");
        assertThat(lanes.offer(fifth)).isSameAs(fifth);
    }

    /** A type is claimed only up to twice its concurrency: what the pool holds of it counts, run or waiting. */
    @Test
    void aTypesRoomIsTwiceItsConcurrencyLessWhatThePoolHoldsOfIt() {
        HandlerRegistry registry = new HandlerRegistry();
        registry.register(Handlers.handler("two", 2));
        TypeLanes lanes = new TypeLanes(registry);
        AtomicInteger freed = new AtomicInteger();
        lanes.onRoomFreed(freed::incrementAndGet);

        assertThat(lanes.room("two")).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            lanes.held("two");
        }
        assertThat(lanes.room("two")).as("two running, two ready: at its limit").isZero();
        assertThat(lanes.room("unlimited")).isEqualTo(Integer.MAX_VALUE);
        lanes.done("two");
        assertThat(lanes.room("two")).isEqualTo(1);
        assertThat(freed).as("told once, when it left its limit").hasValue(1);
        lanes.done("two");
        assertThat(freed).hasValue(1);

        ClaimableTypes claimable = new ClaimableTypes(registry, lanes,
                new PausedTypes(new InMemoryTaskStore(), Set.of()));
        lanes.held("two");
        List<ClaimedTask> beyond = new ArrayList<>();
        List<ClaimedTask> fits = claimable.fitting(List.of(held(1, "two").task, held(2, "other").task,
                held(3, "two").task, held(4, "two").task), beyond);
        assertThat(fits).extracting(ClaimedTask::id).as("one more of 'two', and the rest").containsExactly(1L, 2L);
        assertThat(beyond).extracting(ClaimedTask::id).containsExactly(3L, 4L);
        lanes.held("two");
        assertThat(claimable.now()).as("a type at its limit is not claimed").isEmpty();
    }
}
