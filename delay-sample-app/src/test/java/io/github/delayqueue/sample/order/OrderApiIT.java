package io.github.delayqueue.sample.order;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.sample.OrderServiceApplication;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order service end to end: the application started as in production, on a database and Redis key prefix of its
 * own on the test services, driven over HTTP. What happens when an order's time comes (cancellation, payment in time,
 * the follow-up mail, retries) is tested without waiting, in the queue's test mode: {@link OrderTimeoutScenarios}.
 */
class OrderApiIT {

    private static ConfigurableApplicationContext app;

    private static RestTestClient http;

    @BeforeAll
    static void startApplication() {
        TestDatabase database = TestServices.newDatabase();
        List<String> args = new ArrayList<>();
        for (String property : database.springProperties()) {
            args.add("--" + property);
        }
        args.add("--spring.data.redis.url=" + TestServices.redisUrl());
        args.add("--delay.redis.key-prefix=" + TestServices.newKeyPrefix());
        args.add("--server.port=0");
        app = new SpringApplicationBuilder(OrderServiceApplication.class).run(args.toArray(String[]::new));
        http = RestTestClient.bindToServer()
            .baseUrl("http://localhost:" + app.getEnvironment().getProperty("local.server.port"))
            .build();
    }

    @AfterAll
    static void stopApplication() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void theCancelHandlerLeavesPaidOrdersAloneAndMayRunTwice() {
        OrderTimeouts timeouts = app.getBean(OrderTimeouts.class);
        Order unpaid = create("{\"amount\": 5}");
        Order paid = create("{\"amount\": 6}");
        pay(paid.id());

        for (int attempt = 1; attempt <= 2; attempt++) {
            timeouts.cancelUnpaid(new OrderRef(unpaid.id()), context(unpaid, attempt));
            timeouts.cancelUnpaid(new OrderRef(paid.id()), context(paid, attempt));
        }

        assertThat(get(unpaid.id()).status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(get(paid.id()).status()).isEqualTo(OrderStatus.PAID);
    }

    @Test
    void unknownOrdersAreNotFound() {
        http.get().uri("/orders/{id}", 987654321).exchange()
            .expectStatus().isNotFound()
            .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
            .expectBody().jsonPath("$.detail").isEqualTo("No order with id 987654321");
        http.post().uri("/orders/{id}/pay", 987654321).exchange()
            .expectStatus().isNotFound()
            .expectBody().jsonPath("$.title").isEqualTo("Order not found");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            {"amount": -1}                              | amount      | must be greater than 0
            {"amount": 0, "cancelAfter": "PT1M"}        | amount      | must be greater than 0
            {"cancelAfter": "PT1M"}                     | amount      | must not be null
            {"amount": "twelve"}                        | amount      | must be a number such as 12.50
            {"amount": 1.005}                           | amount      | numeric value out of bounds
            {"amount": 1, "cancelAfter": "soon"}        | cancelAfter | must be an ISO-8601 duration such as PT30M
            {"amount": 1, "cancelAfter": "-PT5S"}       | cancelAfter | must be a positive duration such as PT30M
            {"amount": 1, "cancelAfter": "P400D"}       | cancelAfter | must be at most a year
            {"amount": 1, "cancelAfter":                | cancelAfter | is not valid JSON
            """)
    void badRequestsNameTheField(String body, String field, String message) {
        http.post()
            .uri("/orders")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .exchange()
            .expectStatus().isBadRequest()
            .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
            .expectBody()
            .jsonPath("$.status").isEqualTo(400)
            .jsonPath("$.field").isEqualTo(field)
            .jsonPath("$.errors." + field).value(error -> assertThat((String) error).startsWith(message));
    }

    @Test
    void aBodyThatIsNotJsonAtAllIsABadRequest() {
        http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON).body("twelve fifty").exchange()
            .expectStatus().isBadRequest()
            .expectBody().jsonPath("$.title").isEqualTo("Malformed request body");
        http.get().uri("/orders/abc").exchange()
            .expectStatus().isBadRequest()
            .expectBody().jsonPath("$.field").isEqualTo("id");
    }

    @Test
    void theActuatorShowsHealthMetricsAndTheQueue() {
        http.get().uri("/actuator/health").exchange()
            .expectStatus().isOk()
            .expectBody().jsonPath("$.status").isEqualTo("UP");
        http.get().uri("/actuator/metrics").exchange().expectStatus().isOk();
        http.get().uri("/actuator/prometheus").exchange()
            .expectStatus().isOk()
            .expectBody(String.class).value(text -> assertThat(text).contains("hikaricp_connections"));
        http.get().uri("/actuator/delayqueue").exchange().expectStatus().isOk();
    }

    /**
     * The queue endpoint is exposed over plain HTTP here, without security, so it must stay read-only: a stranger
     * who cancels an order's cancellation task keeps the order open forever.
     */
    @Test
    void theQueueEndpointReadsButRefusesToCancelATask() {
        Order order = create("{\"amount\": 5.00, \"cancelAfter\": \"PT30M\"}");
        DelayQueue queue = app.getBean(DelayQueue.class);
        TaskView task = queue.find(OrderTimeouts.CANCEL_UNPAID, Long.toString(order.id())).orElseThrow();
        assertThat(task.status()).isEqualTo(TaskStatus.QUEUED); // due within delay.hybrid.threshold
        http.get().uri("/actuator/delayqueue/{id}", task.id()).exchange()
            .expectStatus().isOk()
            .expectBody().jsonPath("$.status").isEqualTo("QUEUED");

        http.post().uri("/actuator/delayqueue/{id}", task.id()).contentType(MediaType.APPLICATION_JSON)
            .body("{\"action\": \"cancel\"}")
            .exchange()
            .expectStatus().value(status -> assertThat(status).as("answer to POST cancel").isBetween(400, 499));

        assertThat(queue.find(task.id())).map(TaskView::status).hasValue(TaskStatus.QUEUED);
        assertThat(get(order.id()).status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
    }

    private static Order create(String json) {
        return http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON).body(json).exchange()
            .expectStatus().isCreated()
            .returnResult(Order.class)
            .getResponseBody();
    }

    private static Order pay(long id) {
        return http.post().uri("/orders/{id}/pay", id).exchange()
            .expectStatus().isOk()
            .returnResult(Order.class)
            .getResponseBody();
    }

    private static Order get(long id) {
        return http.get().uri("/orders/{id}", id).exchange()
            .expectStatus().isOk()
            .returnResult(Order.class)
            .getResponseBody();
    }

    private static TaskContext context(Order order, int attempt) {
        return new TaskContext(0, OrderTimeouts.CANCEL_UNPAID, Long.toString(order.id()), attempt, order.cancelAt(),
                order.createdAt(), attempt);
    }
}
