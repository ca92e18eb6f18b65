package io.github.delayqueue.sample.order;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * The {@code orders} table (created by {@code db/migration/V1__create_orders.sql}), times in epoch milliseconds.
 * Status changes are compare-and-set updates: each names the status it expects, and the affected-row count says
 * whether it won.
 */
@Repository
class OrderRepository {

    private final JdbcClient jdbc;

    OrderRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Order insert(BigDecimal amount, Instant createdAt, Instant cancelAt) {
        KeyHolder keys = new GeneratedKeyHolder();
        jdbc.sql("""
                INSERT INTO orders (amount, status, created_at, cancel_at)
                VALUES (:amount, 'PENDING_PAYMENT', :createdAt, :cancelAt)
                """)
            .param("amount", amount)
            .param("createdAt", createdAt.toEpochMilli())
            .param("cancelAt", cancelAt.toEpochMilli())
            .update(keys);
        long id = keys.getKeyAs(Number.class).longValue();
        return findById(id).orElseThrow();
    }

    Optional<Order> findById(long id) {
        return jdbc.sql("""
                SELECT id, amount, status, created_at, cancel_at, paid_at, cancelled_at
                FROM orders WHERE id = :id
                """)
            .param("id", id)
            .query(OrderRepository::order)
            .optional();
    }

    /** {@code PENDING_PAYMENT -> PAID}; false when the order is unknown or no longer waiting for payment. */
    boolean markPaid(long id, Instant paidAt) {
        return jdbc.sql("""
                UPDATE orders SET status = 'PAID', paid_at = :paidAt
                WHERE id = :id AND status = 'PENDING_PAYMENT'
                """)
            .param("paidAt", paidAt.toEpochMilli())
            .param("id", id)
            .update() == 1;
    }

    /**
     * {@code PENDING_PAYMENT -> CANCELLED}; false when the order was paid, cancelled already, or is unknown, or when a
     * later run of the cancellation task (a higher {@code fence}) wrote it already.
     */
    boolean cancelIfUnpaid(long id, Instant cancelledAt, long fence) {
        return jdbc.sql("""
                UPDATE orders SET status = 'CANCELLED', cancelled_at = :cancelledAt, cancel_fence = :fence
                WHERE id = :id AND status = 'PENDING_PAYMENT' AND (cancel_fence IS NULL OR cancel_fence <= :fence)
                """)
            .param("cancelledAt", cancelledAt.toEpochMilli())
            .param("fence", fence)
            .param("id", id)
            .update() == 1;
    }

    private static Order order(ResultSet rs, int row) throws SQLException {
        return new Order(rs.getLong("id"), rs.getBigDecimal("amount"), OrderStatus.valueOf(rs.getString("status")),
                Instant.ofEpochMilli(rs.getLong("created_at")), Instant.ofEpochMilli(rs.getLong("cancel_at")),
                instantOrNull(rs.getObject("paid_at", Long.class)),
                instantOrNull(rs.getObject("cancelled_at", Long.class)));
    }

    private static @Nullable Instant instantOrNull(@Nullable Long epochMillis) {
        return epochMillis == null ? null : Instant.ofEpochMilli(epochMillis);
    }
}
