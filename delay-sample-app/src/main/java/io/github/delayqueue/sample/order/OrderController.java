package io.github.delayqueue.sample.order;

import java.math.BigDecimal;
import java.util.Objects;

import jakarta.validation.Valid;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;

/** The orders API; errors are answered by {@link OrderApiErrors}. */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final OrderService orders;

    OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping
    ResponseEntity<Order> create(@Valid @RequestBody CreateOrderRequest request, UriComponentsBuilder uri) {
        BigDecimal amount = Objects.requireNonNull(request.amount(), "validated @NotNull");
        Order order = orders.create(amount, request.cancelAfter());
        return ResponseEntity.created(uri.path("/orders/{id}").build(order.id())).body(order);
    }

    @PostMapping("/{id}/pay")
    Order pay(@PathVariable long id) {
        return orders.pay(id);
    }

    @GetMapping("/{id}")
    Order get(@PathVariable long id) {
        return orders.get(id);
    }
}
