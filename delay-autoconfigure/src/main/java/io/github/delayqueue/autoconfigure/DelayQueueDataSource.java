package io.github.delayqueue.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@code DataSource} the queue keeps its tasks in, when the application has several (or wants the queue
 * on one that is not its primary): the task table, its schema migration, and the transactions {@code schedule()}
 * joins are then those of this {@code DataSource}. Without it the queue uses the application's only (or primary)
 * {@code DataSource}.
 *
 * @since 0.1.0
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE,
        ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface DelayQueueDataSource {
}
