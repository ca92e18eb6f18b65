package io.github.delayqueue.actuate;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code delayqueue} endpoint, the health component and the Prometheus scrape over real HTTP, with the endpoint's
 * writes opened ({@link DelayQueueEndpointAccessIT} shows them refused by default).
 */
@SpringBootTest(classes = ObservabilityApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "management.endpoints.web.exposure.include=health,delayqueue,prometheus",
                "management.endpoint.delayqueue.access=unrestricted",
                "management.endpoint.health.show-details=always", "spring.web.error.include-message=always" })
class DelayQueueEndpointIT {

    private static final TestDatabase db = TestServices.newDatabase();

    @Value("${local.server.port}")
    int port;

    @Autowired
    DelayQueue queue;

    @Autowired
    ObservabilityApp.Handlers handlers;

    private Http http;

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

    @BeforeEach
    void client() {
        http = new Http(port);
    }

    private TaskView awaitStatus(long id, TaskStatus status) {
        await().atMost(10, TimeUnit.SECONDS).pollInterval(20, TimeUnit.MILLISECONDS)
            .until(() -> queue.find(id).map(TaskView::status).orElse(null) == status);
        return queue.find(id).orElseThrow();
    }

    @Test
    void readShowsCountsOverdueDelaysAndAThresholdSuggestion() {
        long done1 = queue.schedule("obs.ok", "a", Duration.ofMillis(50));
        long done2 = queue.schedule("obs.ok", "b", Duration.ofMillis(50));
        queue.schedule(TaskRequest.of("obs.ok", "c").key("later").delay(Duration.ofMinutes(30)).build());
        queue.schedule("obs.ok", "d", Duration.ofHours(3));
        awaitStatus(done1, TaskStatus.SUCCEEDED);
        awaitStatus(done2, TaskStatus.SUCCEEDED);

        Http.Response response = http.get("/actuator/delayqueue");

        assertThat(response.status()).isEqualTo(200);
        JsonNode body = response.json();
        assertThat(body.get("mode").asString()).isEqualTo("hybrid");
        assertThat(body.get("counts").get("SUCCEEDED").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(body.get("counts").get("QUEUED").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(body.get("counts").get("SCHEDULED").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(body.get("types").get("obs.ok").get("SUCCEEDED").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(body.get("overdue").get("count").asLong()).isZero();
        assertThat(body.get("overdue").get("oldestAge").asString()).isEqualTo("0s");
        JsonNode delays = body.get("requestedDelays");
        assertThat(delays.get("sampled").asLong()).isGreaterThanOrEqualTo(4);
        assertThat(delays.get("buckets")).hasSize(ThresholdAdvisor.BOUNDS.size() + 1);
        assertThat(delays.get("buckets").get(0).get("upTo").asString()).isEqualTo("1s");
        assertThat(delays.get("buckets").get(ThresholdAdvisor.BOUNDS.size()).get("upTo").asString())
            .isEqualTo("+Inf");
        long bucketed = 0;
        for (JsonNode bucket : delays.get("buckets")) {
            bucketed += bucket.get("count").asLong();
        }
        assertThat(bucketed).isEqualTo(delays.get("sampled").asLong());
        JsonNode threshold = body.get("threshold");
        assertThat(threshold.get("current").asString()).isEqualTo("1h");
        assertThat(threshold.get("currentRedisTasks").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(threshold.get("suggested").asString()).isNotBlank();
        assertThat(threshold.get("reason").asString()).contains("most recent tasks").endsWith(".");
        System.out.println("[delayqueue endpoint] " + body.toPrettyString());
    }

    @Test
    void oneTaskByIdOr404() {
        long id = queue.schedule(TaskRequest.of("obs.ok", "x").key("k-" + System.nanoTime())
            .delay(Duration.ofHours(2)).build());

        Http.Response found = http.get("/actuator/delayqueue/" + id);
        assertThat(found.status()).isEqualTo(200);
        JsonNode task = found.json();
        assertThat(task.get("id").asLong()).isEqualTo(id);
        assertThat(task.get("type").asString()).isEqualTo("obs.ok");
        assertThat(task.get("status").asString()).isEqualTo("SCHEDULED");
        assertThat(task.get("key").asString()).startsWith("k-");
        assertThat(task.has("payload")).isFalse();

        assertThat(http.get("/actuator/delayqueue/987654321").status()).isEqualTo(404);
        assertThat(http.get("/actuator/delayqueue/not-a-number").status()).isEqualTo(400);
    }

    @Test
    void rerunGivesAFailedTaskAnotherLife() {
        ObservabilityApp.Handlers.switchFails = true;
        long id = queue.schedule("obs.switch", "s", Duration.ZERO);
        TaskView failed = awaitStatus(id, TaskStatus.FAILED);
        assertThat(failed.lastError()).contains("switched off");
        assertThat(http.get("/actuator/delayqueue/" + id).json().get("status").asString()).isEqualTo("FAILED");
        assertThat(http.get("/actuator/delayqueue/" + id).json().get("errors").get(0).get("error").asString())
            .as("each attempt's error, in the JSON").contains("switched off");

        ObservabilityApp.Handlers.switchFails = false;
        Http.Response rerun = http.post("/actuator/delayqueue/" + id, "{\"action\":\"rerun\"}");

        assertThat(rerun.status()).isEqualTo(200);
        assertThat(rerun.json().get("done").asBoolean()).isTrue();
        assertThat(rerun.json().get("action").asString()).isEqualTo("rerun");
        // Read right after the change: the dispatcher may have claimed (or even run) it already.
        assertThat(rerun.json().get("task").get("status").asString()).isIn("QUEUED", "RUNNING", "SUCCEEDED");
        assertThat(rerun.json().get("task").get("attempts").asInt()).isLessThanOrEqualTo(1);
        TaskView succeeded = awaitStatus(id, TaskStatus.SUCCEEDED);
        assertThat(succeeded.attempts()).isEqualTo(1);
        assertThat(handlers.runsOf(id)).isEqualTo(2);

        Http.Response again = http.post("/actuator/delayqueue/" + id, "{\"action\":\"rerun\"}");
        assertThat(again.status()).isEqualTo(HttpStatus.CONFLICT.value());
        assertThat(again.json().get("done").asBoolean()).isFalse();
        assertThat(again.json().get("message").asString()).contains("SUCCEEDED")
            .contains("only a FAILED or PARKED task");
    }

    @Test
    void cancelStopsAPendingTask() {
        long id = queue.schedule("obs.ok", "c", Duration.ofHours(1));

        Http.Response cancel = http.post("/actuator/delayqueue/" + id, "{\"action\":\"cancel\"}");

        assertThat(cancel.status()).isEqualTo(200);
        assertThat(cancel.json().get("done").asBoolean()).isTrue();
        assertThat(cancel.json().get("task").get("status").asString()).isEqualTo("CANCELLED");
        assertThat(queue.find(id).orElseThrow().status()).isEqualTo(TaskStatus.CANCELLED);

        assertThat(http.post("/actuator/delayqueue/" + id, "{\"action\":\"cancel\"}").status())
            .isEqualTo(HttpStatus.CONFLICT.value());
        assertThat(http.post("/actuator/delayqueue/987654321", "{\"action\":\"cancel\"}").status()).isEqualTo(404);
        Http.Response unknown = http.post("/actuator/delayqueue/" + id, "{\"action\":\"explode\"}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(http.post("/actuator/delayqueue/" + id, "{}").status()).isEqualTo(400);
    }

    @Test
    void theTasksOfATypeArePagedThenRescheduledShiftedAndCancelledByKeyPrefix() {
        String prefix = "acct-" + System.nanoTime() + "/";
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(queue.schedule(TaskRequest.of("obs.ok", "b" + i).key(prefix + i).delay(Duration.ofHours(2))
                .build()));
        }
        long otherKey = queue.schedule(TaskRequest.of("obs.ok", "o").key("other-" + prefix)
            .delay(Duration.ofHours(2)).build());
        String path = "/actuator/delayqueue/types/obs.ok";
        String query = "?keyPrefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);

        Http.Response first = http.get(path + query + "&limit=3");
        assertThat(first.status()).isEqualTo(200);
        assertThat(ids(first.json().get("tasks"))).containsExactlyElementsOf(ids.subList(0, 3));
        assertThat(first.json().get("keyPrefix").asString()).isEqualTo(prefix);
        Http.Response second = http.get(path + query + "&limit=3&after=" + first.json().get("next").asLong());
        assertThat(ids(second.json().get("tasks"))).containsExactlyElementsOf(ids.subList(3, 5));
        assertThat(second.json().has("next")).as("the last page has no next").isFalse();
        assertThat(second.json().get("tasks").get(0).has("payload")).isFalse();

        Instant dueAt = Instant.now().plus(Duration.ofMinutes(30)).truncatedTo(ChronoUnit.SECONDS);
        Http.Response moved = http.post(path, "{\"action\":\"reschedule\",\"keyPrefix\":\"" + prefix
                + "\",\"dueAt\":\"" + dueAt + "\"}");
        assertThat(moved.status()).as(moved.text()).isEqualTo(200);
        assertThat(moved.json().get("changed").asLong()).isEqualTo(5);
        assertThat(moved.json().get("action").asString()).isEqualTo("reschedule");
        // within the 1h threshold now: QUEUED, in the Redis index; the due time converted to the queue's clock at
        // the high end of its offset window (never earlier, up to the window's width later)
        Instant stored = queue.find(ids.get(0)).orElseThrow().dueAt();
        assertThat(stored).isBetween(dueAt, dueAt.plusSeconds(1));
        assertThat(ids).allSatisfy(id -> assertThat(queue.find(id).orElseThrow()).satisfies(task -> {
            assertThat(task.status()).isEqualTo(TaskStatus.QUEUED);
            assertThat(task.dueAt()).isEqualTo(stored);
        }));
        Http.Response shifted = http.post(path, "{\"action\":\"shift\",\"keyPrefix\":\"" + prefix
                + "\",\"by\":\"10m\"}");
        assertThat(shifted.json().get("changed").asLong()).isEqualTo(5);
        assertThat(queue.find(ids.get(0)).orElseThrow().dueAt()).isEqualTo(stored.plus(Duration.ofMinutes(10)));

        Http.Response cancelled = http.post(path, "{\"action\":\"cancel\",\"keyPrefix\":\"" + prefix + "\"}");
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().get("changed").asLong()).isEqualTo(5);
        assertThat(cancelled.json().get("message").asString())
            .isEqualTo("Cancelled 5 tasks of type 'obs.ok' whose key starts with '" + prefix + "'");
        assertThat(ids).allSatisfy(id -> assertThat(queue.find(id).orElseThrow().status())
            .isEqualTo(TaskStatus.CANCELLED));
        assertThat(queue.find(otherKey).orElseThrow().status()).isEqualTo(TaskStatus.SCHEDULED);
        assertThat(ids(http.get(path + query).json().get("tasks"))).isEmpty();
        assertThat(http.post(path, "{\"action\":\"cancel\",\"keyPrefix\":\"" + prefix + "\"}").json()
            .get("changed").asLong()).isZero();
    }

    @Test
    void anUnknownTypeIsNoTaskAndBadInputIsABadRequest() {
        Http.Response none = http.get("/actuator/delayqueue/types/no.such.type");
        assertThat(none.status()).isEqualTo(200);
        assertThat(none.json().get("tasks")).isEmpty();
        assertThat(http.post("/actuator/delayqueue/types/no.such.type", "{\"action\":\"cancel\",\"all\":true}")
            .json().get("changed").asLong()).isZero();

        assertThat(http.get("/actuator/delayqueue/jobs/obs.ok").status()).isEqualTo(400);
        assertThat(http.get("/actuator/delayqueue/types/obs.ok?limit=5000").status()).isEqualTo(400);
        assertThat(http.get("/actuator/delayqueue/types/obs.ok?limit=many").status()).isEqualTo(400);
        assertThat(http.get("/actuator/delayqueue/types/obs.ok?after=987654321").status()).isEqualTo(400);
        String path = "/actuator/delayqueue/types/obs.ok";
        assertThat(http.post(path, "{\"action\":\"explode\",\"keyPrefix\":\"x\"}").status()).isEqualTo(400);
        Http.Response missing = http.post(path, "{\"action\":\"cancel\"}");
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.json().get("message").asString()).as("the reason reaches the client")
            .contains("keyPrefix is missing: give the start of the keys of the tasks to cancel");
        assertThat(http.post(path, "{\"keyPrefix\":\"x\"}").status()).isEqualTo(400);
        assertThat(http.post(path, "{\"action\":\"reschedule\",\"keyPrefix\":\"x\",\"dueAt\":\"monday\"}")
            .status()).isEqualTo(400);
        assertThat(http.post(path, "{\"action\":\"shift\",\"keyPrefix\":\"x\"}").status()).isEqualTo(400);
    }

    private static List<Long> ids(JsonNode tasks) {
        List<Long> ids = new ArrayList<>();
        tasks.forEach(task -> ids.add(task.get("id").asLong()));
        return ids;
    }

    @Test
    void healthAndPrometheusShowTheQueue() {
        long id = queue.schedule("obs.ok", "p", Duration.ofMillis(10));
        awaitStatus(id, TaskStatus.SUCCEEDED);

        Http.Response health = http.get("/actuator/health/delayQueue");
        assertThat(health.status()).isEqualTo(200);
        JsonNode component = health.json();
        assertThat(component.get("status").asString()).isEqualTo("UP");
        assertThat(component.get("details").get("mode").asString()).isEqualTo("hybrid");
        assertThat(component.get("details").get("redisReachable").asBoolean()).isTrue();
        assertThat(component.get("details").get("overdueTasks").asLong()).isZero();
        assertThat(component.get("details").get("oldestOverdueAge").asString()).isEqualTo("PT0S");
        System.out.println("[delayqueue health] " + component);

        String scrape = http.get("/actuator/prometheus").text();
        assertThat(scrape).contains("delay_tasks_scheduled_total{type=\"obs.ok\"}")
            .contains("delay_task_lateness_seconds_bucket{type=\"obs.ok\",le=\"+Inf\"}")
            .contains("delay_tasks_pending{status=\"queued\"}")
            .contains("delay_index_size{shard=\"0\"}")
            .contains("delay_task_execution_seconds_count");
    }
}
