/**
 * The time index: {@link io.github.delayqueue.index.TimeIndex}, which knows which task ids fall due soon, and its
 * Redis implementation. It holds ids and due times only; the database holds everything else.
 */
@NullMarked
package io.github.delayqueue.index;

import org.jspecify.annotations.NullMarked;
