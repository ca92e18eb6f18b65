/**
 * The producer's write path: {@link io.github.delayqueue.schedule.DefaultDelayQueue}, the
 * {@link io.github.delayqueue.api.DelayQueue} applications call, which validates a request, writes the row (joining
 * the caller's transaction, or sharing a multi-row write with concurrent callers outside one) and only after the
 * commit indexes the task and wakes the consumers; and {@link io.github.delayqueue.schedule.DeadLetters}, the same
 * path for an operator who re-runs a failed task.
 */
@NullMarked
package io.github.delayqueue.schedule;

import org.jspecify.annotations.NullMarked;
