package io.github.delayqueue.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.testservices.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 1: four instances, 5,000 tasks due over 0-15 s across both tiers (threshold 7.5 s, so half of them start in
 * the database and are migrated, over three migration rounds), a tenth of all attempts failing and retried; on one
 * Redis and on a Redis Cluster.
 * <p>
 * The rate is what loads the instances, and it is that of the earlier 20,000 tasks over a minute (about 330 a second,
 * retries besides), in a quarter of the wall clock. Twice the rate (20,000 over 30 s) started tasks 6 s late on this
 * 2-core machine under other builds' load: a test of the machine, not of the queue.
 */
@Tag("reliability")
class ManyInstancesReliabilityIT {

    private static final int TASKS = 5_000;

    /** The longest delay; with {@code -Ddelay.reliability.max-delay=PT30S} the tasks come at half the rate. */
    private static final Duration MAX_DELAY = Duration.parse(System.getProperty("delay.reliability.max-delay",
            "PT15S"));

    /** First starts are at most this late; the machine runs four instances, MariaDB and Redis on two cores. */
    private static final long FIRST_START_BOUND_MILLIS = 3_000;

    @Test
    void fourInstancesOnOneRedis() {
        run(new String[0]);
    }

    @Test
    void fourInstancesOnARedisCluster() {
        List<String> cluster = new ArrayList<>(List.of(TestRedis.clusterProperties()));
        cluster.add("delay.redis.shards=3");
        run(cluster.toArray(String[]::new));
    }

    private void run(String[] redisProperties) {
        Journal journal = new Journal();
        List<String> properties = new ArrayList<>(List.of(redisProperties));
        // the threshold at half the longest delay: half the tasks start in the database and are migrated
        properties.addAll(List.of("delay.hybrid.threshold=" + MAX_DELAY.dividedBy(2).toMillis() + "ms",
                "delay.hybrid.migration-interval=5s", "delay.worker.threads=4",
                "spring.datasource.hikari.maximum-pool-size=6"));
        try (Instances instances = new Instances(ReliabilityApp.class, journal, properties.toArray(String[]::new))) {
            List<DelayQueue> queues = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                queues.add(instances.start().getBean(DelayQueue.class));
            }
            List<Long> ids = new ArrayList<>();
            long maxDelay = MAX_DELAY.toMillis();
            for (int batch = 0; batch < TASKS / 500; batch++) {
                List<TaskRequest> requests = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    requests.add(TaskRequest.of("rel.work", "w")
                        .delay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(maxDelay)))
                        .build());
                }
                ids.addAll(queues.get(batch % 4).scheduleAll(requests));
            }
            long lastDue = System.currentTimeMillis() + maxDelay;

            JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
            // every task succeeds (10 attempts at a 10 % failure rate) within 30 s of the last due time
            await().atMost(maxDelay + 30_000, TimeUnit.MILLISECONDS).pollInterval(1, TimeUnit.SECONDS)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == TASKS);
            assertThat(System.currentTimeMillis()).isLessThan(lastDue + 30_000);
            Verdict.assertKept(journal, ids, FIRST_START_BOUND_MILLIS, 0);
            assertThat(journal.totalStarts()).as("starts, retries included").isGreaterThan(TASKS);
        }
    }
}
