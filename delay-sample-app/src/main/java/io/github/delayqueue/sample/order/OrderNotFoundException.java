package io.github.delayqueue.sample.order;

/** No order has this id. */
public class OrderNotFoundException extends RuntimeException {

    private final long orderId;

    OrderNotFoundException(long orderId) {
        super("No order with id " + orderId);
        this.orderId = orderId;
    }

    public long orderId() {
        return orderId;
    }
}
