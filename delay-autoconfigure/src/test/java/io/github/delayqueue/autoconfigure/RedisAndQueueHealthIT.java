package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.health.DataSourceHealthContributorAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@code /actuator/health} says about Redis, on a real database with the engine running: in jdbc mode with the
 * Redis starter excluded there is no Redis to check and all is UP; in hybrid mode with Redis unreachable, Spring
 * Boot's own {@code redis} component is DOWN (and with it the whole answer), while the queue's {@code delayQueue}
 * stays UP, running tasks from the database, and says {@code redisReachable: false}.
 */
class RedisAndQueueHealthIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
                DataRedisAutoConfiguration.class, DelayQueueAutoConfiguration.class,
                HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
                HealthEndpointAutoConfiguration.class, DataSourceHealthContributorAutoConfiguration.class,
                DataRedisHealthContributorAutoConfiguration.class, DelayQueueHealthAutoConfiguration.class))
        .withUserConfiguration(App.class)
        .withPropertyValues(TestServices.newDatabase().springProperties())
        .withPropertyValues("management.endpoint.health.show-details=always", "delay.jdbc.poll-interval=50ms",
                "delay.redis.key-prefix=" + TestServices.newKeyPrefix());

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class App {

        @Bean
        Ran ran() {
            return new Ran();
        }
    }

    static class Ran {

        final CountDownLatch latch = new CountDownLatch(1);

        @DelayedHandler(type = "health.run")
        void run(String payload) {
            latch.countDown();
        }
    }

    @Test
    void jdbcModeWithTheRedisStarterExcludedRunsTasksAndIsUp() {
        runner.withClassLoader(DelayQueueAutoConfigurationTests.WITHOUT_REDIS)
            .withPropertyValues("delay.mode=jdbc")
            .run(context -> {
                assertThat(context).hasNotFailed();
                context.getBean(DelayQueue.class).schedule("health.run", "x", Duration.ZERO);
                assertThat(context.getBean(Ran.class).latch.await(10, TimeUnit.SECONDS)).isTrue();

                CompositeHealthDescriptor health = health(context.getBean(HealthEndpoint.class));
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getComponents()).containsKeys("db", "delayQueue").doesNotContainKey("redis");
                assertThat(details(health, "delayQueue")).containsEntry("mode", "jdbc");
            });
    }

    @Test
    void anUnreachableRedisIsBootsRedisComponentDownWhileTheQueueStaysUp() throws IOException {
        runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + closedPort(),
                "spring.data.redis.timeout=500ms", "spring.data.redis.connect-timeout=500ms")
            .run(context -> {
                assertThat(context).hasNotFailed();
                HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
                await().atMost(15, TimeUnit.SECONDS).pollInterval(200, TimeUnit.MILLISECONDS).untilAsserted(() -> {
                    CompositeHealthDescriptor health = health(endpoint);
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getComponents().get("redis").getStatus()).isEqualTo(Status.DOWN);
                    assertThat((String) details(health, "redis").get("error")).contains("Redis");
                    assertThat(health.getComponents().get("delayQueue").getStatus()).isEqualTo(Status.UP);
                    assertThat(details(health, "delayQueue")).containsEntry("mode", "hybrid")
                        .containsEntry("redisReachable", false);
                });
                // and it still runs tasks, from the database
                context.getBean(DelayQueue.class).schedule("health.run", "x", Duration.ZERO);
                assertThat(context.getBean(Ran.class).latch.await(15, TimeUnit.SECONDS)).isTrue();
            });
    }

    private static CompositeHealthDescriptor health(HealthEndpoint endpoint) {
        return (CompositeHealthDescriptor) endpoint.health();
    }

    private static Map<String, Object> details(CompositeHealthDescriptor health, String component) {
        return ((IndicatedHealthDescriptor) health.getComponents().get(component)).getDetails();
    }

    /** A loopback port nothing listens on: connections to it are refused at once. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
