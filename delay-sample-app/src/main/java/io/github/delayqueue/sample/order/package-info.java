/**
 * Orders: created waiting for payment, paid, or cancelled by the {@code order.cancel} task when payment does not come
 * in time; the HTTP API under {@code /orders}.
 */
@NullMarked
package io.github.delayqueue.sample.order;

import org.jspecify.annotations.NullMarked;
