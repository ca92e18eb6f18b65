package io.github.delayqueue.reliability;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.it.Instances;
import io.github.delayqueue.it.Journal;
import io.github.delayqueue.testservices.TcpProxy;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 4: the database goes away mid-run. Once its sessions are killed on the server ({@code KILL}), once it
 * refuses connections for a few seconds (a {@link TcpProxy} in front of it is cut). The engine logs, backs off and
 * carries on; scheduling during the outage throws instead of losing the task; nothing is lost or run twice at once.
 */
@Tag("reliability")
class DatabaseOutageReliabilityIT {

    private static List<TaskRequest> spread(int count, long overMillis) {
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            requests.add(TaskRequest.of("rel.work", "d" + i).delay(Duration.ofMillis(i * overMillis / count)).build());
        }
        return requests;
    }

    @Test
    void sessionsKilledOnTheServerMidRun() {
        ReliabilityApp.Handlers.failureRate = 0;
        Journal journal = new Journal();
        try (Instances instances = new Instances(ReliabilityApp.class, journal)) {
            DelayQueue queue = instances.start().getBean(DelayQueue.class);
            instances.start();
            List<Long> ids = new ArrayList<>(queue.scheduleAll(spread(3000, 8_000)));

            JdbcTemplate admin = new JdbcTemplate(instances.database().dataSource());
            for (int round = 0; round < 3; round++) {
                sleep(2_000);
                List<Long> sessions = admin.queryForList("SELECT id FROM information_schema.processlist "
                        + "WHERE db = ? AND id <> CONNECTION_ID()", Long.class, instances.database().name());
                for (long session : sessions) {
                    try {
                        admin.execute("KILL " + session);
                    }
                    catch (RuntimeException ex) {
                        // it ended by itself meanwhile
                    }
                }
                assertThat(sessions).as("sessions killed in round %d", round).isNotEmpty();
            }
            await().atMost(60, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                .until(() -> admin.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == ids.size());
            Verdict.assertKept(journal, ids, 10_000, 0);
        }
        finally {
            ReliabilityApp.Handlers.failureRate = 0.10;
        }
    }

    @Test
    void databaseRefusingConnectionsForAFewSeconds() {
        ReliabilityApp.Handlers.failureRate = 0;
        Journal journal = new Journal();
        URI server = URI.create(TestServices.endpoints().jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(server.getHost(), server.getPort());
                Instances instances = new Instances(ReliabilityApp.class, journal,
                        "spring.datasource.hikari.connection-timeout=1000",
                        "spring.datasource.hikari.validation-timeout=500")) {
            String viaProxy = "spring.datasource.url=" + instances.database().urlThrough(proxy);
            ConfigurableApplicationContext first = instances.start(viaProxy);
            instances.start(viaProxy);
            DelayQueue queue = first.getBean(DelayQueue.class);
            List<Long> ids = new ArrayList<>(queue.scheduleAll(spread(2000, 10_000)));

            sleep(2_500);
            proxy.cut();
            // a pooled connection that died with the server may have carried the write: the error says what it knows
            assertThatThrownBy(() -> queue.schedule("rel.work", "during outage", Duration.ZERO))
                .isInstanceOf(DelayQueueException.class)
                .satisfies(ex -> assertThat(ex.getMessage()).containsAnyOf("Nothing was stored", "may or may not"));
            sleep(4_000);
            proxy.restore();
            // the pool reconnects in its own time; scheduling works again within seconds
            long[] after = new long[1];
            await().atMost(15, TimeUnit.SECONDS).pollInterval(200, TimeUnit.MILLISECONDS).ignoreExceptions()
                .until(() -> {
                    after[0] = queue.schedule("rel.work", "after outage", Duration.ZERO);
                    return true;
                });
            ids.add(after[0]);

            JdbcTemplate direct = new JdbcTemplate(instances.database().dataSource());
            await().atMost(60, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS)
                .until(() -> direct.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'",
                        Integer.class) == ids.size());
            assertThat(direct.queryForObject("SELECT COUNT(*) FROM delay_task", Integer.class)).isEqualTo(ids.size());
            // tasks due during the four-second outage ran when it ended
            Verdict.assertKept(journal, ids, 4_000 + 5_000, 0);
        }
        finally {
            ReliabilityApp.Handlers.failureRate = 0.10;
        }
    }

    /**
     * An instance that can no longer reach the database cannot renew its lease; once the lease ends, another instance
     * takes the task. The handler still running on the cut-off instance is interrupted a third of a lease before
     * that, so the two runs do not overlap.
     */
    @Test
    void aHandlerWhoseLeaseCannotBeRenewedIsInterruptedBeforeAnotherInstanceTakesItsTask() {
        Journal journal = new Journal();
        URI server = URI.create(TestServices.endpoints().jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(server.getHost(), server.getPort());
                Instances instances = new Instances(ReliabilityApp.class, journal, "delay.worker.lease=3s",
                        "delay.worker.recovery-interval=200ms", "delay.worker.shutdown-timeout=1s",
                        "spring.datasource.hikari.connection-timeout=1000",
                        "spring.datasource.hikari.validation-timeout=500")) {
            ConfigurableApplicationContext cutOff = instances
                .start("spring.datasource.url=" + instances.database().urlThrough(proxy));
            long id = cutOff.getBean(DelayQueue.class).schedule("rel.sleep", 10_000L, Duration.ZERO);
            journal.awaitStarted(id, 10);
            instances.start(); // reaches the database directly
            proxy.cut();

            await().atMost(30, TimeUnit.SECONDS).until(() -> journal.startsOf(id).size() == 2);
            Journal.Start first = journal.startsOf(id).get(0);
            Journal.Start second = journal.startsOf(id).get(1);
            assertThat(first.instance()).isNotEqualTo(second.instance());
            assertThat(first.endedAt()).as("the cut-off run ended before the survivor's began")
                .isLessThanOrEqualTo(second.startedAt());
            proxy.restore();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
