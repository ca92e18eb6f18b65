package io.github.delayqueue.sample.order;

import java.time.Duration;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.test.AutoConfigureDelayQueueTester;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.TaskRuns;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.DataAccessException;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.web.context.WebApplicationContext;

import static io.github.delayqueue.test.DelayQueueAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order service's delayed behaviour, without waiting: the application runs in the delay queue's test mode
 * ({@link AutoConfigureDelayQueueTester}), the test places and pays orders over the HTTP API and moves the queue's
 * clock with the {@link DelayQueueTester}, which runs what falls due on the test's thread. Subclasses give the store.
 */
@SpringBootTest(properties = "sample.embedded.enabled=false")
@AutoConfigureDelayQueueTester
abstract class OrderTimeoutScenarios {

    @Autowired
    DelayQueueTester tester;

    @Autowired
    DelayQueue queue;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    WebApplicationContext context;

    RestTestClient http;

    @DynamicPropertySource
    static void services(DynamicPropertyRegistry registry) {
        TestDatabase database = TestServices.newDatabase();
        for (String property : database.springProperties()) {
            int equals = property.indexOf('=');
            registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
        }
        registry.add("spring.data.redis.url", TestServices::redisUrl);
        registry.add("delay.redis.key-prefix", TestServices::newKeyPrefix);
    }

    @BeforeEach
    void client() {
        http = RestTestClient.bindToApplicationContext(context).build();
    }

    /** The context, and so the queue, is shared by the tests: each starts with nothing left to run. */
    @AfterEach
    void runWhatIsLeft() {
        jdbc.sql("DROP TRIGGER IF EXISTS orders_unavailable").update();
        assertThat(tester.advance(Duration.ofDays(2))).allSucceeded();
    }

    @Test
    void anUnpaidOrderIsCancelledWhenItsTimeIsUp() {
        Order order = create("{\"amount\": 12.50, \"cancelAfter\": \"PT30M\"}");
        String key = Long.toString(order.id());
        assertThat(Duration.between(order.createdAt(), order.cancelAt())).isEqualTo(Duration.ofMinutes(30));
        assertThat(tester.pending()).hasTask(OrderTimeouts.CANCEL_UNPAID, key).dueIn(Duration.ofMinutes(30))
            .dueAt(order.cancelAt()).hasStatus(TaskStatus.QUEUED);

        assertThat(tester.advance(Duration.ofMinutes(30).minusMillis(1))).didNotRun(OrderTimeouts.CANCEL_UNPAID, key);
        assertThat(get(order.id()).status()).isEqualTo(OrderStatus.PENDING_PAYMENT);

        TaskRuns runs = tester.advance(Duration.ofMillis(1));

        assertThat(runs).ranOnce(OrderTimeouts.CANCEL_UNPAID, key).succeeded();
        Order cancelled = get(order.id());
        assertThat(cancelled.status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(cancelled.cancelledAt()).isEqualTo(order.cancelAt());
        assertThat(cancelled.paidAt()).isNull();
        http.post().uri("/orders/{id}/pay", order.id()).exchange()
            .expectStatus().isEqualTo(409)
            .expectBody().jsonPath("$.title").isEqualTo("Order cancelled");
    }

    @Test
    void theDefaultCancelAfterIsThirtyMinutes() {
        Order order = create("{\"amount\": 7}");

        assertThat(tester.pending()).hasTask(OrderTimeouts.CANCEL_UNPAID, Long.toString(order.id()))
            .dueIn(Duration.ofMinutes(30));
    }

    @Test
    void anOrderPaidInTimeIsNeverCancelledAndGetsItsMailADayLater() {
        Order order = create("{\"amount\": 30, \"cancelAfter\": \"PT30M\"}");
        String key = Long.toString(order.id());
        tester.advance(Duration.ofMinutes(10));

        Order paid = pay(order.id());

        assertThat(paid.status()).isEqualTo(OrderStatus.PAID);
        assertThat(paid.paidAt()).isEqualTo(tester.now());
        assertThat(tester.pending()).hasNoTask(OrderTimeouts.CANCEL_UNPAID, key)
            .hasTask(FollowUpMails.FOLLOW_UP_MAIL, key).dueIn(Duration.ofDays(1)).hasStatus(TaskStatus.SCHEDULED);
        assertThat(queue.find(OrderTimeouts.CANCEL_UNPAID, key)).map(TaskView::status)
            .hasValue(TaskStatus.CANCELLED);

        TaskRuns runs = tester.advance(Duration.ofDays(1));

        assertThat(runs).didNotRun(OrderTimeouts.CANCEL_UNPAID, key)
            .ranOnce(FollowUpMails.FOLLOW_UP_MAIL, key).succeeded();
        assertThat(runs.of(FollowUpMails.FOLLOW_UP_MAIL, key).get(0).ranAt()).isEqualTo(paid.paidAt()
            .plus(Duration.ofDays(1)));
        assertThat(get(order.id()).status()).isEqualTo(OrderStatus.PAID);
    }

    @Test
    void aRepeatedPaymentEventPushesTheOneMailOut() {
        Order order = create("{\"amount\": 30}");
        String key = Long.toString(order.id());
        pay(order.id());
        long mail = queue.find(FollowUpMails.FOLLOW_UP_MAIL, key).orElseThrow().id();
        tester.advance(Duration.ofHours(2));

        assertThat(pay(order.id()).status()).as("paying again changes nothing").isEqualTo(OrderStatus.PAID);

        assertThat(tester.pending()).hasTask(FollowUpMails.FOLLOW_UP_MAIL, key).dueIn(Duration.ofDays(1));
        assertThat(queue.find(FollowUpMails.FOLLOW_UP_MAIL, key)).map(TaskView::id).hasValue(mail);
        assertThat(tester.advance(Duration.ofDays(1).minusMillis(1))).didNotRun(FollowUpMails.FOLLOW_UP_MAIL, key);
        assertThat(tester.advance(Duration.ofMillis(1))).ranOnce(FollowUpMails.FOLLOW_UP_MAIL, key).succeeded();
    }

    @Test
    void aCancellationThatFailsIsRetriedTenSecondsLater() {
        Order order = create("{\"amount\": 5, \"cancelAfter\": \"PT1M\"}");
        String key = Long.toString(order.id());
        // the orders table refuses every change for a while: the database, not a mock, fails the handler
        jdbc.sql("""
                CREATE TRIGGER orders_unavailable BEFORE UPDATE ON orders FOR EACH ROW
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'orders are read-only for maintenance'
                """).update();

        assertThat(tester.advance(Duration.ofMinutes(1))).ranOnce(OrderTimeouts.CANCEL_UNPAID, key).isRetried()
            .failedWith(DataAccessException.class).hasAttempt(1);
        assertThat(get(order.id()).status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
        assertThat(tester.pending()).hasTask(OrderTimeouts.CANCEL_UNPAID, key).dueIn(Duration.ofSeconds(10))
            .hasAttempts(1);
        jdbc.sql("DROP TRIGGER orders_unavailable").update();

        assertThat(tester.advance(Duration.ofSeconds(10))).ranOnce(OrderTimeouts.CANCEL_UNPAID, key).succeeded()
            .hasAttempt(2);
        assertThat(get(order.id()).status()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(queue.find(OrderTimeouts.CANCEL_UNPAID, key)).map(TaskView::status)
            .hasValue(TaskStatus.SUCCEEDED);
    }

    /** How many tasks of this type and key the queue's task table holds. */
    long rowsInTheTaskTable(String type, String key) {
        return jdbc.sql("SELECT COUNT(*) FROM delay_task WHERE task_type = ? AND task_key = ?")
            .params(type, key)
            .query(Long.class)
            .single();
    }

    Order create(String json) {
        return http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON).body(json).exchange()
            .expectStatus().isCreated()
            .returnResult(Order.class)
            .getResponseBody();
    }

    private Order pay(long id) {
        return http.post().uri("/orders/{id}/pay", id).exchange()
            .expectStatus().isOk()
            .returnResult(Order.class)
            .getResponseBody();
    }

    private Order get(long id) {
        return http.get().uri("/orders/{id}", id).exchange()
            .expectStatus().isOk()
            .returnResult(Order.class)
            .getResponseBody();
    }
}
