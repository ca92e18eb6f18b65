package io.github.delayqueue.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that {@link DelayQueueSchemaInitializer} initializes the database. Ordered after Liquibase's and
 * Flyway's detectors (orders 0 and 1) and after the SQL-script initializers ({@code LOWEST_PRECEDENCE - 100}), as
 * Spring Modulith orders its own: the application's migrations then run first, on the empty schema they expect, and the
 * queue's table never makes Flyway refuse a "non-empty schema without a schema history table".
 */
class DelayQueueDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    static final int ORDER = Ordered.LOWEST_PRECEDENCE - 50;

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(DelayQueueSchemaInitializer.class);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
