package io.github.delayqueue.sample.order;

/** The order can no longer be paid: it was cancelled because payment did not come in time. */
public class OrderCancelledException extends RuntimeException {

    private final Order order;

    OrderCancelledException(Order order) {
        super("Order " + order.id() + " was cancelled at " + order.cancelledAt() + " and can no longer be paid");
        this.order = order;
    }

    public Order order() {
        return order;
    }
}
