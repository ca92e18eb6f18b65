package io.github.delayqueue.autoconfigure;

import javax.sql.DataSource;

import io.github.delayqueue.store.TaskSchema;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.ClassUtils;

/**
 * Applies the task table's migrations when the context starts, as {@code delay.jdbc.initialize-schema} says.
 * Spring Boot knows it as a database initializer ({@link DelayQueueDatabaseInitializerDetector}): it runs after the
 * application's own Flyway or Liquibase, so those meet the empty schema they may expect, and the queue's store,
 * engine and inspector, like every bean marked {@code @DependsOnDatabaseInitialization}, wait for it.
 */
public class DelayQueueSchemaInitializer implements InitializingBean, BeanClassLoaderAware {

    static final String FLYWAY = "org.flywaydb.core.Flyway";

    private static final Logger log = LoggerFactory.getLogger(DelayQueueSchemaInitializer.class);

    private final DataSource dataSource;

    private final DelayQueueProperties.Jdbc jdbc;

    private @Nullable ClassLoader classLoader = ClassUtils.getDefaultClassLoader();

    public DelayQueueSchemaInitializer(DataSource dataSource, DelayQueueProperties.Jdbc jdbc) {
        this.dataSource = dataSource;
        this.jdbc = jdbc;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void afterPropertiesSet() {
        DatabaseInitializationMode mode = jdbc.getInitializeSchema();
        if (mode == DatabaseInitializationMode.NEVER
                || mode == DatabaseInitializationMode.EMBEDDED && !EmbeddedDatabaseConnection.isEmbedded(dataSource)) {
            return;
        }
        if (!ClassUtils.isPresent(FLYWAY, classLoader)) {
            throw new InvalidConfigurationPropertyValueException("delay.jdbc.initialize-schema", mode,
                    "the queue creates its table with Flyway, which is not on the classpath: add org.flywaydb:"
                            + "flyway-core and org.flywaydb:flyway-mysql (delay-starter brings both), or set "
                            + "delay.jdbc.initialize-schema=never and apply classpath:db/delay/migration yourself");
        }
        String history = jdbc.resolvedSchemaHistoryTable();
        int applied = new TaskSchema(dataSource, jdbc.getTableName(), history).migrate();
        if (applied > 0) {
            log.info("Applied {} migration(s) to the delay queue table {} (history in {})", applied,
                    jdbc.getTableName(), history);
        }
    }
}
