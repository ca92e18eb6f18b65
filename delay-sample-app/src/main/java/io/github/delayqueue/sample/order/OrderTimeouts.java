package io.github.delayqueue.sample.order;

import java.time.Clock;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Cancels orders that were not paid in time. The handler's compare-and-set update is what guarantees a paid order is
 * never cancelled; dropping the task when an order is paid only saves the queue a run that would change nothing.
 */
@Component
class OrderTimeouts {

    /** The task scheduled with every new order, keyed by the order id and due at its {@code cancelAt}. */
    static final String CANCEL_UNPAID = "order.cancel";

    private static final Logger log = LoggerFactory.getLogger(OrderTimeouts.class);

    private final OrderRepository orders;

    private final DelayQueue delayQueue;

    private final Clock clock;

    OrderTimeouts(OrderRepository orders, DelayQueue delayQueue, Clock clock) {
        this.orders = orders;
        this.delayQueue = delayQueue;
        this.clock = clock;
    }

    /**
     * Runs at the order's {@code cancelAt}; running it again, or after payment, changes nothing. It completes in the
     * order's transaction ({@code @Transactional}): the cancellation and the task's completion commit together, so an
     * instance that dies right after the commit leaves nothing to run again, and a run whose lease was taken over
     * commits nothing. The write is fenced with the task's token as well, which also holds for a call from outside
     * the queue.
     */
    @Transactional
    @DelayedHandler(type = CANCEL_UNPAID, maxAttempts = 5, backoff = "10s", concurrency = 4)
    void cancelUnpaid(OrderRef order, TaskContext task) {
        if (orders.cancelIfUnpaid(order.orderId(), clock.instant(), task.fencingToken())) {
            log.info("Cancelled order {}: not paid by {}", order.orderId(), task.dueAt());
        }
        else {
            log.debug("Order {} was paid or cancelled already; nothing to cancel", order.orderId());
        }
    }

    /** After a payment commits, drops the order's pending cancellation; a failure here is harmless. */
    @TransactionalEventListener
    void dropCancellation(OrderPaid paid) {
        try {
            delayQueue.cancel(CANCEL_UNPAID, new OrderRef(paid.orderId()).key());
        }
        catch (RuntimeException ex) {
            log.warn("Could not drop the cancellation task of paid order {}; it will run and find the order paid",
                    paid.orderId(), ex);
        }
    }
}
