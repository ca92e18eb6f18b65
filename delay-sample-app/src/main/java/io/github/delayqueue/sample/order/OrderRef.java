package io.github.delayqueue.sample.order;

/**
 * The payload of the order tasks: only the id, so a handler always reads the order's current state.
 *
 * @param orderId the order id
 */
record OrderRef(long orderId) {

    /** The task key: one task of each type per order, so scheduling twice for an order is harmless. */
    String key() {
        return Long.toString(orderId);
    }
}
