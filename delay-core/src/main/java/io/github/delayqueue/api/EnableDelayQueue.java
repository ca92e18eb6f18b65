package io.github.delayqueue.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Switches the delay queue on: put it on a {@code @Configuration} (or the {@code @SpringBootApplication}) class.
 * Without it the starter defines no beans and nothing polls, so adding the dependency alone changes nothing.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface EnableDelayQueue {
}
