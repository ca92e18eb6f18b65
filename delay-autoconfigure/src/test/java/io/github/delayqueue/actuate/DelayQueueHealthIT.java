package io.github.delayqueue.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code delayQueue} health component goes DOWN when the database stops answering and comes back when it does;
 * and goes DOWN when {@code delay.health.max-overdue} is exceeded.
 *
 * <p>
 * The database is made unreachable for real, and for this application alone: it connects as a MariaDB/MySQL user of
 * its own, which the test then locks ({@code ALTER USER ... ACCOUNT LOCK}) and whose open connections it kills, so
 * every query and every new connection fails inside the driver exactly as against a database that refuses the
 * application, while the other tests sharing the server go on untouched. Unlocking the account is the recovery. (A
 * switchable DataSource wrapper would only simulate the failure above JDBC; a proxy that cuts the TCP stream would
 * also do, but locking needs no extra moving part.)
 */
class DelayQueueHealthIT {

    @Test
    void downWhenTheDatabaseIsUnreachableAndUpWhenItIsBack() {
        TestDatabase db = TestServices.newDatabase();
        String user = "delay_hc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        String password = UUID.randomUUID().toString();
        TestServices.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'");
        try {
            TestServices.execute("GRANT ALL PRIVILEGES ON " + db.name() + ".* TO '" + user + "'@'%'");
            String[] asUser = { "spring.datasource.url=" + db.url(), "spring.datasource.username=" + user,
                    "spring.datasource.password=" + password };
            try (ConfigurableApplicationContext context = Contexts.start(WebApplicationType.SERVLET, asUser,
                    "spring.datasource.hikari.connection-timeout=1000",
                    "spring.datasource.hikari.validation-timeout=500",
                    "management.endpoints.web.exposure.include=health",
                    "management.endpoint.health.show-details=always")) {
                Http http = new Http(context.getEnvironment().getRequiredProperty("local.server.port", Integer.class));

                Http.Response up = http.get("/actuator/health/delayQueue");
                assertThat(up.status()).isEqualTo(200);
                assertThat(up.json().get("status").asString()).isEqualTo("UP");
                assertThat(up.json().get("details").get("redisReachable").asBoolean()).isTrue();

                TestServices.execute("ALTER USER '" + user + "'@'%' ACCOUNT LOCK");
                killConnectionsOf(db, user);
                long cut = System.nanoTime();
                await().atMost(15, TimeUnit.SECONDS).pollInterval(200, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                    Http.Response down = http.get("/actuator/health/delayQueue");
                    assertThat(down.status()).isEqualTo(503);
                    JsonNode body = down.json();
                    assertThat(body.get("status").asString()).isEqualTo("DOWN");
                    assertThat(body.get("details").get("error").asString()).isNotBlank();
                    assertThat(body.get("details").get("mode").asString()).isEqualTo("hybrid");
                });
                long secondsToDown = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - cut);
                assertThat(secondsToDown).as("a health check bounded in time").isLessThan(10);
                assertThat(http.get("/actuator/health").status()).isEqualTo(503);

                TestServices.execute("ALTER USER '" + user + "'@'%' ACCOUNT UNLOCK");
                await().atMost(15, TimeUnit.SECONDS).pollInterval(200, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                    Http.Response back = http.get("/actuator/health/delayQueue");
                    assertThat(back.status()).isEqualTo(200);
                    assertThat(back.json().get("status").asString()).isEqualTo("UP");
                });
            }
        }
        finally {
            TestServices.execute("DROP USER IF EXISTS '" + user + "'@'%'");
        }
    }

    /** Kills the user's open connections, through the test user's own connection to the test database. */
    private static void killConnectionsOf(TestDatabase db, String user) {
        JdbcTemplate root = new JdbcTemplate(db.dataSource());
        List<Long> ids = new ArrayList<>(root.queryForList(
                "SELECT id FROM information_schema.PROCESSLIST WHERE user = ?", Long.class, user));
        for (long id : ids) {
            try {
                root.execute("KILL CONNECTION " + id);
            }
            catch (RuntimeException ex) {
                // gone already
            }
        }
    }

    @Test
    void downWhenTheOldestOverdueTaskIsLaterThanMaxOverdue() {
        try (ConfigurableApplicationContext context = Contexts.start(WebApplicationType.NONE,
                TestServices.newDatabase().springProperties(), "delay.worker.enabled=false",
                "delay.health.max-overdue=2s")) {
            DelayQueueHealthIndicator health = context.getBean("delayQueueHealthIndicator",
                    DelayQueueHealthIndicator.class);
            Health fresh = health.health();
            assertThat(fresh.getStatus()).isEqualTo(Status.UP);
            assertThat(fresh.getDetails()).containsEntry("overdueTasks", 0L)
                .containsEntry("maxOverdue", "PT2S")
                .containsEntry("redisReachable", true)
                .doesNotContainKey("heldTasks");

            // No worker runs it: the task grows overdue, as when every instance's consumers are stuck.
            context.getBean(DelayQueue.class).schedule("obs.ok", "late", Instant.now());

            await().atMost(10, TimeUnit.SECONDS).pollInterval(100, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                Health late = health.health();
                assertThat(late.getDetails()).containsEntry("overdueTasks", 1L);
                assertThat(late.getStatus()).isEqualTo(Status.DOWN);
                assertThat((String) late.getDetails().get("reason")).contains("delay.health.max-overdue (PT2S)");
                assertThat(Duration.parse((String) late.getDetails().get("oldestOverdueAge")))
                    .isGreaterThan(Duration.ofSeconds(2));
            });
        }
    }
}
