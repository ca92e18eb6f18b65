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
}
