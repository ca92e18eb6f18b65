package io.github.delayqueue.sample.order;

import java.math.BigDecimal;
import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * An order as stored and as the API shows it.
 *
 * @param id the order id
 * @param amount what the customer owes
 * @param status where the order is
 * @param createdAt when it was placed
 * @param cancelAt when it is cancelled if still unpaid: the due time of its {@code order.cancel} task
 * @param paidAt when it was paid, if it was
 * @param cancelledAt when it was cancelled, if it was
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Order(long id, BigDecimal amount, OrderStatus status, Instant createdAt, Instant cancelAt,
        @Nullable Instant paidAt, @Nullable Instant cancelledAt) {
}
