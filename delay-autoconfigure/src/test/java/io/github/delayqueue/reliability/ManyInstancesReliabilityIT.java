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
 * Scenario 1: four instances, 20,000 tasks due over 0-2 minutes across both tiers (threshold 30 s, so most start in
 * the database and are migrated), a tenth of all attempts failing and retried; on one Redis and on a Redis Cluster.
 */
@Tag("reliability")
class ManyInstancesReliabilityIT {

    private static final int TASKS = 20_000;

    /** The longest delay; {@code -Ddelay.reliability.max-delay=PT30S} shortens a local run. */
    private static final Duration MAX_DELAY = Duration.parse(System.getProperty("delay.reliability.max-delay", "PT1M"));

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
        properties.addAll(List.of("delay.hybrid.threshold=30s", "delay.hybrid.migration-interval=5s",
                "delay.worker.threads=4", "spring.datasource.hikari.maximum-pool-size=6"));
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
