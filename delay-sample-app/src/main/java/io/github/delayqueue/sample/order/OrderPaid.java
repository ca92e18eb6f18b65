package io.github.delayqueue.sample.order;

/**
 * Published inside the paying transaction; listeners marked {@code @TransactionalEventListener} see it after commit.
 *
 * @param orderId the order that was paid
 */
record OrderPaid(long orderId) {
}
