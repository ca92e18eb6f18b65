package io.github.delayqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.testservices.TestRedis;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** Hybrid mode unchanged on a real Redis Cluster, with the index split into shards over several slots. */
class HybridClusterIT {

    private final Journal journal = new Journal();

    private Instances instances;

    @BeforeEach
    void start() {
        List<String> properties = new ArrayList<>(List.of(TestRedis.clusterProperties()));
        properties.add("delay.redis.shards=4");
        properties.add("delay.hybrid.threshold=2s");
        properties.add("delay.hybrid.migration-interval=500ms");
        instances = new Instances(journal, properties.toArray(String[]::new));
    }

    @AfterEach
    void close() {
        if (instances != null) {
            instances.close();
        }
    }

    @Test
    void shardsLiveInDifferentSlotsAndShortTasksFireOnTime() {
        ConfigurableApplicationContext context = instances.start();
        RedisTimeIndex index = (RedisTimeIndex) context.getBean(TimeIndex.class);
        Set<Integer> slots = new HashSet<>();
        for (int shard = 0; shard < index.shards(); shard++) {
            slots.add(SlotHash.getSlot(IndexAccess.key(index, shard)));
        }
        assertThat(slots).hasSize(4);

        DelayQueue queue = context.getBean(DelayQueue.class);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ids.add(queue.schedule("test.ok", "c" + i, Duration.ofMillis(200 + i * 25L)));
        }
        journal.awaitDistinct(ids.size(), 15);
        Lateness.assertOnceAndOnTime(journal, ids, 500);
    }

    @Test
    void threeInstancesRunTenThousandMixedTasksExactlyOnce() {
        HybridTiersIT.runMixed(instances, journal);
    }
}
