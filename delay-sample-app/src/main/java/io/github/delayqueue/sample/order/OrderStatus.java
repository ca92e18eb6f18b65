package io.github.delayqueue.sample.order;

/** Where an order is; it leaves {@link #PENDING_PAYMENT} once, to one of the other two. */
public enum OrderStatus {

    /** Created, waiting for payment; cancelled when its {@code cancelAt} passes unpaid. */
    PENDING_PAYMENT,

    /** Paid in time. */
    PAID,

    /** Not paid in time. */
    CANCELLED
}
