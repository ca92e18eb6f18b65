package io.github.delayqueue.sample.order;

import java.time.Duration;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Sends the "how was your order?" e-mail a day after payment; this sample logs it instead. Due far beyond
 * {@code delay.hybrid.threshold}, the task waits in the database (status {@code SCHEDULED}) and only moves to the
 * Redis index shortly before it is due.
 */
@Component
class FollowUpMails {

    /** The task scheduled when an order is paid, keyed by the order id. */
    static final String FOLLOW_UP_MAIL = "order.follow-up-mail";

    private static final Logger log = LoggerFactory.getLogger(FollowUpMails.class);

    private final OrderService orders;

    FollowUpMails(OrderService orders) {
        this.orders = orders;
    }

    @DelayedHandler(type = FOLLOW_UP_MAIL, maxAttempts = 3, backoff = "1m")
    void send(OrderRef ref, TaskContext task) {
        Order order = orders.get(ref.orderId());
        log.info("Follow-up e-mail for order {} ({} paid at {}, {} later): logged, not sent", order.id(),
                order.amount(), order.paidAt(), Duration.between(task.scheduledAt(), task.dueAt()));
    }
}
