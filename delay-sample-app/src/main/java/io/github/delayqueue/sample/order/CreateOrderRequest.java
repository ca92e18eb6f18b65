package io.github.delayqueue.sample.order;

import java.math.BigDecimal;
import java.time.Duration;

import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /orders}.
 *
 * @param amount what the customer owes, positive, at most two decimals
 * @param cancelAfter how long the order waits for payment, as an ISO-8601 duration such as {@code PT30M}; absent
 * means {@code sample.orders.cancel-after}
 */
record CreateOrderRequest(
        @NotNull @Positive @Digits(integer = 10, fraction = 2) @Nullable BigDecimal amount,
        @DurationMin(millis = 1, message = "must be a positive duration such as PT30M")
        @DurationMax(days = 365, message = "must be at most a year (P365D)") @Nullable Duration cancelAfter) {
}
