package io.github.delayqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stopping fits a container's grace period: the engine stops claiming and hands back what never started before the
 * web server begins its graceful drain, running handlers finish meanwhile, and the whole stop takes about as long as
 * the longest running handler.
 */
class ShutdownIT {

    private final Journal journal = new Journal();

    private Instances instances;

    @AfterEach
    void close() {
        TestApp.Handlers.gate.countDown();
        if (instances != null) {
            instances.close();
        }
    }

    /** Counts, when the web server's graceful shutdown is about to begin, the claims that never started. */
    static final class DrainProbe implements SmartLifecycle {

        final AtomicInteger unstartedClaims = new AtomicInteger(-1);

        final AtomicInteger runningHandlers = new AtomicInteger(-1);

        private final DataSource dataSource;

        private volatile boolean running;

        DrainProbe(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            unstartedClaims.set(jdbc.queryForObject(
                    "SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING' AND started_at IS NULL", Integer.class));
            runningHandlers.set(jdbc.queryForObject(
                    "SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING' AND started_at IS NOT NULL",
                    Integer.class));
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE + 1; // stopped just before the drain
        }
    }

    @Test
    void theEngineStopsClaimingBeforeTheWebServerDrainsAndRunningHandlersFinish() throws Exception {
        instances = new Instances(journal, "delay.mode=jdbc");
        DrainProbe probe = new DrainProbe(instances.database().dataSource());
        List<String> properties = new ArrayList<>(instances.properties());
        properties.add("server.port=0");
        properties.add("server.shutdown=graceful");
        properties.add("delay.worker.shutdown-timeout=20s");
        TestApp.Handlers.gate = new CountDownLatch(1);
        TestApp.Handlers.blockingStarted.set(0);
        ConfigurableApplicationContext web = new SpringApplicationBuilder(TestApp.class)
            .web(WebApplicationType.SERVLET)
            .properties(properties.toArray(String[]::new))
            .initializers(ctx -> {
                ctx.getBeanFactory().registerSingleton("journal", journal);
                ctx.getBeanFactory().registerSingleton("drainProbe", probe);
            })
            .run();
        assertThat(web.getBean("delayQueueLifecycle", SmartLifecycle.class).getPhase())
            .isGreaterThan(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);
        DelayQueue queue = web.getBean(DelayQueue.class);
        for (int i = 0; i < 8; i++) {
            queue.schedule("test.blocking", "s" + i, Duration.ZERO); // four run (its concurrency), four wait
        }
        JdbcTemplate jdbc = new JdbcTemplate(instances.database().dataSource());
        await().atMost(10, TimeUnit.SECONDS).until(() -> TestApp.Handlers.blockingStarted.get() == 4);
        await().atMost(5, TimeUnit.SECONDS).until(() -> jdbc
            .queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'RUNNING'", Integer.class) == 8);

        Thread release = new Thread(() -> {
            try {
                Thread.sleep(2_000);
            }
            catch (InterruptedException ex) {
                return;
            }
            TestApp.Handlers.gate.countDown();
        });
        release.start();
        long closing = System.currentTimeMillis();
        web.close();
        long closedIn = System.currentTimeMillis() - closing;

        assertThat(probe.unstartedClaims.get()).as("claims not started when the web drain begins").isZero();
        assertThat(probe.runningHandlers.get()).as("handlers still running then").isEqualTo(4);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SUCCEEDED'", Integer.class))
            .isEqualTo(4);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delay_task WHERE status = 'SCHEDULED' AND attempts = 0 "
                + "AND owner IS NULL", Integer.class)).isEqualTo(4);
        // the handlers held the stop for two seconds; far from the 30 s a container gets by default
        assertThat(closedIn).isLessThan(15_000);
    }
}
