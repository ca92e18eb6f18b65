package io.github.delayqueue.actuate;

import java.time.Duration;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code delayqueue} endpoint exposed over HTTP and configured no further, as an application that only lists it
 * in {@code management.endpoints.web.exposure.include} has it: it reads, and it refuses the writes (cancel, rerun,
 * the bulk changes of a type's tasks), which change tasks and must be opened on purpose
 * ({@code management.endpoint.delayqueue.access=unrestricted}, see {@link DelayQueueEndpointIT}).
 */
@SpringBootTest(classes = ObservabilityApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=health,delayqueue")
class DelayQueueEndpointAccessIT {

    private static final TestDatabase db = TestServices.newDatabase();

    @Value("${local.server.port}")
    int port;

    @Autowired
    DelayQueue queue;

    @DynamicPropertySource
    static void services(DynamicPropertyRegistry registry) {
        for (String property : db.springProperties()) {
            String[] pair = property.split("=", 2);
            registry.add(pair[0], () -> pair[1]);
        }
        registry.add("spring.data.redis.url", TestServices::redisUrl);
        String prefix = TestServices.newKeyPrefix();
        registry.add("delay.redis.key-prefix", () -> prefix);
    }

    @Test
    void byDefaultTheEndpointReadsButRefusesACancel() {
        long id = queue.schedule("obs.ok", "c", Duration.ofHours(2));
        Http http = new Http(port);
        assertThat(http.get("/actuator/delayqueue").status()).isEqualTo(200);
        assertThat(http.get("/actuator/delayqueue/" + id).status()).isEqualTo(200);

        Http.Response cancel = http.post("/actuator/delayqueue/" + id, "{\"action\":\"cancel\"}");

        assertThat(cancel.status()).as("answer to POST cancel: %s", cancel.text()).isEqualTo(405);
        assertThat(queue.find(id)).map(TaskView::status).hasValue(TaskStatus.SCHEDULED);
        assertThat(http.post("/actuator/delayqueue/" + id, "{\"action\":\"rerun\"}").status()).isEqualTo(405);
        assertThat(http.get("/actuator/delayqueue/types/obs.ok").status()).isEqualTo(200);
        Http.Response bulk = http.post("/actuator/delayqueue/types/obs.ok", "{\"action\":\"cancel\",\"all\":true}");
        assertThat(bulk.status()).as("answer to POST bulk cancel: %s", bulk.text()).isEqualTo(405);
        assertThat(queue.find(id)).map(TaskView::status).hasValue(TaskStatus.SCHEDULED);
    }
}
