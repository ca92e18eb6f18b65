package io.github.delayqueue.sample.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.sample.OrderServiceApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The run a new user gets from the README on a machine with nothing but a JDK: no database or Redis configured, so
 * the application starts embedded ones on free ports, works, and stops them when it closes. Slow (MariaDB is
 * unpacked and installed), so it is the only test of this path.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedServicesIT {

    @Test
    void withNothingConfiguredTheAppRunsOnEmbeddedServersAndStopsThem(CapturedOutput output) {
        URI database;
        URI redis;
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(OrderServiceApplication.class)
            .run("--server.port=0")) {
            String jdbcUrl = app.getEnvironment().getProperty("spring.datasource.url");
            database = URI.create(jdbcUrl.substring("jdbc:".length()));
            redis = URI.create(app.getEnvironment().getProperty("spring.data.redis.url"));
            assertThat(database.getHost()).isEqualTo("127.0.0.1");
            assertThat(database.getPort()).isNotEqualTo(3306);
            assertThat(redis.getPort()).isNotEqualTo(6379);
            assertThat(output).contains("started an embedded MariaDB at " + jdbcUrl)
                .contains("started an embedded Redis at " + redis);

            RestTestClient http = RestTestClient.bindToServer()
                .baseUrl("http://localhost:" + app.getEnvironment().getProperty("local.server.port"))
                .build();
            long id = http.post()
                .uri("/orders")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"amount\": 12.50, \"cancelAfter\": \"PT1S\"}")
                .exchange()
                .expectStatus().isCreated()
                .returnResult(OrderId.class)
                .getResponseBody()
                .id();
            await().atMost(15, TimeUnit.SECONDS).pollInterval(100, TimeUnit.MILLISECONDS).until(() -> "CANCELLED"
                .equals(http.get().uri("/orders/{id}", id).exchange().returnResult(OrderId.class).getResponseBody()
                    .status()));
            http.get().uri("/actuator/health").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.components.db.status").isEqualTo("UP")
                .jsonPath("$.components.redis.status").isEqualTo("UP");
        }
        assertThat(listening(database)).as("embedded MariaDB stopped with the app").isFalse();
        assertThat(listening(redis)).as("embedded Redis stopped with the app").isFalse();
    }

    private static boolean listening(URI server) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), 500);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    record OrderId(long id, String status) {
    }
}
