package io.github.delayqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.index.IndexEntry;
import io.github.delayqueue.index.IndexRebuilds;
import io.github.delayqueue.index.IndexUnavailableException;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.index.TimeIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What every {@link TimeIndex} must do: a hint shared by all instances, never the truth, so the rules are few but
 * exact. Ids live in shard {@code id % shards}; a pop is atomic, so two instances never both take an id; an entry
 * that becomes the earliest of its shard is announced to every subscribed instance; the record of rebuilds is shared;
 * an index that cannot be reached says so with {@link IndexUnavailableException}. {@code RedisTimeIndexContractIT}
 * runs these on a Redis node and on a Redis Cluster, {@code InMemoryTimeIndexTest} on {@link InMemoryTimeIndex}.
 */
public abstract class TimeIndexContract {

    protected static final long T0 = 1_750_000_000_000L;

    private final List<TimeIndex> subscribed = new ArrayList<>();

    /** A new, empty index of its own with {@code shards} shards. */
    protected abstract TimeIndex createIndex(int shards);

    /** The same index as another instance (another process) sees it. */
    protected abstract TimeIndex anotherInstance(TimeIndex index);

    /** An index whose server cannot be reached. */
    protected abstract TimeIndex unreachableIndex();

    @AfterEach
    void unsubscribe() {
        subscribed.forEach(TimeIndex::unsubscribe);
    }

    @Test
    void aTaskLivesInTheShardOfItsIdModuloTheShardCount() {
        TimeIndex index = createIndex(3);
        List<IndexEntry> entries = new ArrayList<>();
        for (long id = 1; id <= 10; id++) {
            entries.add(new IndexEntry(id, T0));
        }

        index.add(entries);

        assertThat(index.shards()).isEqualTo(3);
        assertThat(List.of(index.size(0), index.size(1), index.size(2))).containsExactly(3L, 4L, 3L);
        for (int shard = 0; shard < 3; shard++) {
            int expected = shard;
            assertThat(index.pop(shard, T0, 100).ids()).allSatisfy(id -> assertThat(id % 3).isEqualTo(expected));
        }
    }

    @Test
    void aPopTakesTheDueIdsEarliestFirstUpToTheLimitAndNamesTheNextDueTime() {
        TimeIndex index = createIndex(1);
        index.add(List.of(new IndexEntry(1, T0 + 30), new IndexEntry(2, T0 + 10), new IndexEntry(3, T0 + 20),
                new IndexEntry(4, T0 + 100)));

        assertThat(index.pop(0, T0 + 30, 2)).isEqualTo(new Popped(List.of(2L, 3L), T0 + 30));
        assertThat(index.pop(0, T0 + 30, 10)).as("due at exactly now is due").isEqualTo(new Popped(List.of(1L),
                T0 + 100));
        assertThat(index.pop(0, T0 + 99, 10)).isEqualTo(new Popped(List.of(), T0 + 100));
        assertThat(index.pop(0, T0 + 100, 10)).isEqualTo(new Popped(List.of(4L), null));
        assertThat(index.pop(0, T0 + 100, 10)).isEqualTo(new Popped(List.of(), null));
        assertThat(index.size(0)).isZero();
    }

    /** A rescheduled or retried task is added again: it keeps one entry, at its new time. */
    @Test
    void anIdAddedAgainMovesToItsNewDueTime() {
        TimeIndex index = createIndex(1);
        index.add(List.of(new IndexEntry(7, T0 + 10)));
        index.add(List.of(new IndexEntry(7, T0 + 50)));

        assertThat(index.size(0)).isEqualTo(1);
        assertThat(index.pop(0, T0 + 20, 10)).isEqualTo(new Popped(List.of(), T0 + 50));
        assertThat(index.pop(0, T0 + 50, 10).ids()).containsExactly(7L);
    }

    @Test
    void removeDropsTheIdsThatAreThereAndIgnoresTheRest() {
        TimeIndex index = createIndex(2);
        index.add(List.of(new IndexEntry(1, T0), new IndexEntry(2, T0), new IndexEntry(3, T0)));

        index.remove(List.of(1L, 2L, 99L));

        assertThat(index.size(0) + index.size(1)).isEqualTo(1);
        assertThat(index.pop(1, T0, 10).ids()).containsExactly(3L);
        index.remove(List.of());
    }

    @Test
    void concurrentPopsOfOneShardTakeEveryIdOnce() throws Exception {
        TimeIndex index = createIndex(1);
        List<IndexEntry> entries = new ArrayList<>();
        for (long id = 1; id <= 1_000; id++) {
            entries.add(new IndexEntry(id, T0 + id % 10));
        }
        index.add(entries);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<List<Long>>> poppers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                TimeIndex instance = anotherInstance(index);
                poppers.add(() -> {
                    List<Long> mine = new ArrayList<>();
                    List<Long> popped;
                    do {
                        popped = instance.pop(0, T0 + 10, 7).ids();
                        mine.addAll(popped);
                    }
                    while (!popped.isEmpty());
                    return mine;
                });
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> popper : pool.invokeAll(poppers, 60, TimeUnit.SECONDS)) {
                all.addAll(popper.get());
            }
            assertThat(all).hasSize(1_000).doesNotHaveDuplicates();
            assertThat(new HashSet<>(all)).containsAll(entries.stream().map(IndexEntry::id).toList());
        }
        finally {
            pool.shutdownNow();
        }
    }

    /**
     * A new head of a shard is announced to every subscribed instance, the adding one included; an entry behind its
     * shard's head is not, so the announcements each instance hears are exactly the heads, each shard's in order.
     * Heads of different shards may be heard in either order: in a cluster they travel from different nodes.
     */
    @Test
    void everySubscribedInstanceHearsOfEachNewShardHeadAndOfNothingElse() {
        TimeIndex first = createIndex(2);
        TimeIndex second = anotherInstance(first);
        List<Long> heardByFirst = subscribe(first);
        List<Long> heardBySecond = subscribe(second);

        first.add(List.of(new IndexEntry(1, T0 + 1_000))); // shard 1's first entry
        first.add(List.of(new IndexEntry(3, T0 + 2_000))); // behind shard 1's head
        second.add(List.of(new IndexEntry(2, T0 + 3_000))); // shard 0's first entry, later than shard 1's head
        second.add(List.of(new IndexEntry(5, T0 + 500), new IndexEntry(7, T0 + 400))); // shard 1's new head

        List<Long> heads = List.of(T0 + 1_000, T0 + 3_000, T0 + 400);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (List<Long> heard : List.of(heardByFirst, heardBySecond)) {
                assertThat(heard).containsExactlyInAnyOrderElementsOf(heads);
                assertThat(heard.indexOf(T0 + 1_000)).as("shard 1's heads in order")
                    .isLessThan(heard.indexOf(T0 + 400));
            }
        });
    }

    @Test
    void anUnsubscribedInstanceHearsNoMore() throws Exception {
        TimeIndex first = createIndex(1);
        TimeIndex second = anotherInstance(first);
        List<Long> heardByFirst = subscribe(first);
        List<Long> heardBySecond = subscribe(second);
        first.add(List.of(new IndexEntry(1, T0 + 1_000)));
        await().atMost(Duration.ofSeconds(10)).until(() -> heardByFirst.size() == 1 && heardBySecond.size() == 1);

        first.unsubscribe();
        second.add(List.of(new IndexEntry(2, T0 + 500)));

        await().atMost(Duration.ofSeconds(10)).until(() -> heardBySecond.size() == 2);
        Thread.sleep(200); // delivered to every subscriber at once; a little slack for the other connection
        assertThat(heardByFirst).containsExactly(T0 + 1_000);
        assertThat(first.keepSubscribed()).isFalse();
    }

    /** One instance rebuilds for all: the record is shared, numbers count up, the lock is one holder's. */
    @Test
    void theRecordOfRebuildsIsSharedByEveryInstance() {
        TimeIndex index = createIndex(1);
        IndexRebuilds mine = index.rebuilds();
        IndexRebuilds theirs = anotherInstance(index).rebuilds();

        assertThat(mine.record()).isEqualTo(new IndexRebuilds.Record(0, 0));
        assertThat(mine.begin()).isEqualTo(1);
        assertThat(theirs.begin()).isEqualTo(2);
        assertThat(theirs.completed(2)).isTrue();
        assertThat(mine.completed(1)).as("an earlier rebuild completing late still counts").isTrue();
        assertThat(mine.record()).isEqualTo(new IndexRebuilds.Record(2, 2));
        assertThat(theirs.completed(3)).as("a rebuild the record does not know (it was lost)").isFalse();
        assertThat(theirs.record()).isEqualTo(new IndexRebuilds.Record(2, 2));
    }

    @Test
    void theRebuildLockIsHeldByOneTokenUntilReleasedOrExpired() throws Exception {
        TimeIndex index = createIndex(1);
        IndexRebuilds mine = index.rebuilds();
        IndexRebuilds theirs = anotherInstance(index).rebuilds();

        assertThat(mine.tryLock("mine", Duration.ofSeconds(30))).isTrue();
        assertThat(theirs.tryLock("theirs", Duration.ofSeconds(30))).isFalse();
        assertThat(theirs.extendLock("theirs", Duration.ofSeconds(30))).isFalse();
        theirs.unlock("theirs");
        assertThat(mine.extendLock("mine", Duration.ofMillis(300))).isTrue();
        assertThat(theirs.tryLock("theirs", Duration.ofSeconds(30))).isFalse();
        Thread.sleep(600);
        assertThat(mine.extendLock("mine", Duration.ofSeconds(30))).as("expired").isFalse();
        assertThat(theirs.tryLock("theirs", Duration.ofSeconds(30))).isTrue();
        mine.unlock("mine");
        assertThat(mine.tryLock("mine", Duration.ofSeconds(30))).as("still theirs").isFalse();
        theirs.unlock("theirs");
        assertThat(mine.tryLock("mine", Duration.ofSeconds(30))).isTrue();
    }

    @Test
    void anIndexThatCannotBeReachedSaysSo() {
        TimeIndex index = unreachableIndex();
        List<Long> heard = new CopyOnWriteArrayList<>();

        assertThatExceptionOfType(IndexUnavailableException.class)
            .isThrownBy(() -> index.add(List.of(new IndexEntry(1, T0))));
        assertThatExceptionOfType(IndexUnavailableException.class).isThrownBy(() -> index.remove(List.of(1L)));
        assertThatExceptionOfType(IndexUnavailableException.class).isThrownBy(() -> index.pop(0, T0, 10));
        assertThatExceptionOfType(IndexUnavailableException.class).isThrownBy(() -> index.size(0));
        assertThatExceptionOfType(IndexUnavailableException.class).isThrownBy(() -> index.rebuilds().begin());
        assertThatExceptionOfType(IndexUnavailableException.class).isThrownBy(() -> index.subscribe(heard::add));
        subscribed.add(index);
        assertThat(index.keepSubscribed()).as("kept, not live").isFalse();
    }

    private List<Long> subscribe(TimeIndex index) {
        List<Long> heard = new CopyOnWriteArrayList<>();
        index.subscribe(heard::add);
        subscribed.add(index);
        return heard;
    }
}
