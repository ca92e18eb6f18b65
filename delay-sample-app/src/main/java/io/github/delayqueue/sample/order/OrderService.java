package io.github.delayqueue.sample.order;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places and pays orders. The tasks that follow an order are scheduled in the same transaction as the order change
 * that causes them, so an order never exists without its timeout and a rolled-back order leaves no task behind.
 */
@Service
public class OrderService {

    private final OrderRepository orders;

    private final DelayQueue delayQueue;

    private final OrderProperties properties;

    private final ApplicationEventPublisher events;

    private final Clock clock;

    OrderService(OrderRepository orders, DelayQueue delayQueue, OrderProperties properties,
            ApplicationEventPublisher events, Clock clock) {
        this.orders = orders;
        this.delayQueue = delayQueue;
        this.properties = properties;
        this.events = events;
        this.clock = clock;
    }

    /** Places an order that is cancelled after {@code cancelAfter} (or the configured default) unless paid. */
    @Transactional
    public Order create(BigDecimal amount, @Nullable Duration cancelAfter) {
        // Milliseconds are what both the orders table and the queue keep, so cancelAt is the task's due time exactly.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Instant cancelAt = now.plus(cancelAfter != null ? cancelAfter : properties.getCancelAfter());
        Order order = orders.insert(amount, now, cancelAt);
        OrderRef ref = new OrderRef(order.id());
        delayQueue.schedule(TaskRequest.of(OrderTimeouts.CANCEL_UNPAID, ref).key(ref.key()).dueAt(cancelAt).build());
        return order;
    }

    /**
     * Pays an order waiting for payment, and schedules its follow-up mail. Paying a paid order again (a payment
     * provider repeating its notification) changes nothing on the order and returns it, but debounces the mail: it
     * goes out {@code follow-up-after} past the last payment event that came while it waited, once.
     *
     * @throws OrderNotFoundException if there is no such order
     * @throws OrderCancelledException if the order was cancelled before payment came in
     */
    @Transactional
    public Order pay(long id) {
        boolean paidNow = orders.markPaid(id, clock.instant());
        Order order = get(id);
        if (order.status() == OrderStatus.CANCELLED) {
            throw new OrderCancelledException(order);
        }
        OrderRef ref = new OrderRef(id);
        // a repeated payment event pushes the pending mail out instead of adding one; once the mail went out, the
        // key is free again, and only a payment that paid the order schedules another
        if (paidNow || delayQueue.find(FollowUpMails.FOLLOW_UP_MAIL, ref.key())
            .filter(mail -> mail.status().isPending()).isPresent()) {
            delayQueue.schedule(TaskRequest.of(FollowUpMails.FOLLOW_UP_MAIL, ref)
                .key(ref.key())
                .delay(properties.getFollowUpAfter())
                .debounce()
                .build());
        }
        if (paidNow) {
            events.publishEvent(new OrderPaid(id));
        }
        return order;
    }

    /** @throws OrderNotFoundException if there is no such order */
    @Transactional(readOnly = true)
    public Order get(long id) {
        return orders.findById(id).orElseThrow(() -> new OrderNotFoundException(id));
    }
}
