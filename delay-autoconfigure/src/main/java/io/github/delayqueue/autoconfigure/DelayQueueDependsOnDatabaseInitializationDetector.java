package io.github.delayqueue.autoconfigure;

import java.util.Set;

import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.store.TaskInspector;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;

/**
 * Makes the queue's beans that read and write the task table wait for every database initializer, the queue's
 * schema included, as Spring Boot does for {@code JdbcTemplate}s: the store (so the {@code DelayQueue} too), the
 * inspector the actuator parts read, and the engine, also when the application brings its own store.
 */
class DelayQueueDependsOnDatabaseInitializationDetector
        extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {

    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        return Set.of(DelayQueueRuntime.class, TaskInspector.class);
    }
}
