package io.github.delayqueue.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method that runs the tasks of one type. The method may declare one payload parameter, bound from the
 * task's JSON with the application's Jackson mapper, and a {@link TaskContext} parameter, in any order. Returning
 * normally completes the task; throwing schedules a retry until {@link #maxAttempts()} is reached.
 *
 * <p>String attributes accept {@code ${...}} placeholders; durations accept {@code 10s}, {@code 500ms}, {@code 2m}
 * or ISO-8601 ({@code PT10S}). Attributes left at their defaults take the {@code delay.retry.*} properties.
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayedHandler {

    /**
     * The task type this method runs; one handler per type.
     *
     * @return the type, e.g. {@code order.cancel}
     */
    String type();

    /**
     * Attempts allowed in all. A task's own value wins.
     *
     * @return the attempts; {@code 0} takes {@code delay.retry.max-attempts}
     */
    int maxAttempts() default 0;

    /**
     * Wait before the second attempt.
     *
     * @return a duration such as {@code 10s}; empty takes {@code delay.retry.backoff}
     */
    String backoff() default "";

    /**
     * Factor the wait grows by per attempt.
     *
     * @return a number such as {@code 2}; empty takes {@code delay.retry.multiplier}
     */
    String multiplier() default "";

    /**
     * Longest wait between attempts.
     *
     * @return a duration such as {@code 5m}; empty takes {@code delay.retry.max-backoff}
     */
    String maxBackoff() default "";

    /**
     * Most tasks of this type running at once on one instance.
     *
     * @return the limit; {@code 0} means only the worker pool limits it
     */
    int concurrency() default 0;

    /**
     * Most tasks of this type running at once across every instance that shares the task table: for a third party
     * that allows only so many calls at a time, whatever the number of instances ({@link #concurrency} holds on each
     * instance alone). A claim counts the type's tasks that run (or are claimed to run) under a live lease, in the
     * database, and takes only what is left; a task waits, pending, while the type is at its limit. An instance that
     * dies gives its share back when its leases expire ({@code delay.worker.lease}), as its tasks are recovered. Each
     * instance holds the limit its own handler declares: give every instance the same value.
     *
     * @return a whole number such as {@code 3}, or a placeholder such as {@code ${invoices.max-calls}} (resolved
     *     against the application's environment); empty or {@code 0} means none
     * @since 0.1.0
     */
    String clusterConcurrency() default "";

    /**
     * Most tasks of this type started per second across every instance that shares the task table: for a third
     * party that allows only so many calls per second. Counted when a claim takes a task, per second of the queue's
     * clock (aligned with the database's), so a task handed back unstarted still counts; a task waits, pending, until
     * a second with room.
     *
     * @return a whole number such as {@code 5}, or a placeholder resolved against the application's environment;
     *     empty or {@code 0} means none
     * @since 0.1.0
     */
    String clusterStartsPerSecond() default "";

    /**
     * Runs the handler in a transaction of the queue's {@code DataSource} and marks the task {@code SUCCEEDED} in that
     * same transaction: what the handler writes to that database and the task's completion commit together, so a
     * crash after the commit never runs the handler again (effectively once), and a handler that throws rolls back
     * both, whatever its rollback rules, leaving the attempt to the retry policy. Tasks the handler schedules in it
     * are created only if it commits. If the task's lease was lost meanwhile (another instance may be running it),
     * the transaction rolls back. The transaction is the application's {@code PlatformTransactionManager}'s, which
     * must manage the queue's {@code DataSource} (a {@code JdbcTransactionManager} or a {@code JpaTransactionManager}
     * of it); the queue's own when the application has none.
     * <p>
     * Spring's {@code @Transactional} on the method or its class implies it, unless its propagation starts a
     * transaction of its own ({@code REQUIRES_NEW}) or none ({@code NOT_SUPPORTED}, {@code NEVER}); the handler's
     * {@code @Transactional} then joins the queue's transaction. What the handler does outside the database (a mail,
     * a call to another service) stays at least once: it may happen again when the transaction fails to commit.
     *
     * @return {@code true} to complete the task in the handler's transaction
     * @since 0.1.0
     */
    boolean transactional() default false;

    /**
     * How long one attempt may run. Past it the handler's thread is interrupted and the attempt counts as failed,
     * whatever the handler does next: the task is retried after its backoff, or dead-lettered after its last attempt,
     * with an error that names the timeout. A transactional handler's transaction rolls back. A handler that has not
     * returned a second after its interrupt is reported (a WARN line, the {@code delay.task.timeouts.ignored} meter)
     * and its failure written at once; its thread runs no other task until it returns, and what it returns then is
     * dropped. Use it to bound calls that may hang; a handler that checks {@link Thread#isInterrupted()} or uses
     * interruptible calls stops in time.
     *
     * @return a duration such as {@code 30s}; empty takes {@code delay.worker.handler-timeout} (none by default)
     * @since 0.1.0
     */
    String timeout() default "";
}
