/**
 * The sample application: an order service whose unpaid orders are cancelled by a delayed task.
 */
@NullMarked
package io.github.delayqueue.sample;

import org.jspecify.annotations.NullMarked;
