package io.github.delayqueue.reliability;

import java.time.Duration;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.testservices.TcpProxy;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The database vanishes without closing the connections (a partition, a failover without a reset): the claim
 * connection the dispatcher keeps would wait forever for an answer, since the drivers' socket timeout is infinite by
 * default, and the instance would claim nothing for the operating system's TCP timeout (about 15 minutes). The claim
 * connection's own network timeout (the lease) ends that wait.
 */
@Tag("reliability")
class HalfOpenConnectionReliabilityIT {

    @Test
    void aClaimOnAHalfOpenConnectionGivesUpAfterTheLeaseAndClaimingGoesOn() {
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                "delay.worker.recovery-interval=500ms", "spring.datasource.hikari.validation-timeout=500",
                "spring.datasource.hikari.connection-timeout=2000");
                TcpProxy proxy = instances.database().newProxy()) {
            ConfigurableApplicationContext victim = instances
                .start("spring.datasource.url=" + instances.database().urlThrough(proxy));
            long first = victim.getBean(DelayQueue.class).schedule("rel.work", "first", Duration.ZERO);
            journal.awaitStarted(first, 15); // the claim connection is open and kept

            proxy.blackhole();
            DelayQueue producer = instances.start("delay.worker.enabled=false").getBean(DelayQueue.class);
            long next = producer.schedule("rel.work", "after the partition", Duration.ofMillis(100));

            // the lease (3 s), then a fresh connection; without a timeout the claim would hang far longer
            journal.awaitStarted(next, 30);
        }
    }
}
