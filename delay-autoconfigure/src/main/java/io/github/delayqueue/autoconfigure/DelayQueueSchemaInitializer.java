package io.github.delayqueue.autoconfigure;

import javax.sql.DataSource;

import io.github.delayqueue.store.TaskSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;

/**
 * Applies the task table's migrations when the context starts, before the store is used, unless
 * {@code delay.jdbc.initialize-schema=false}.
 */
public class DelayQueueSchemaInitializer implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueSchemaInitializer.class);

    private final DataSource dataSource;

    private final DelayQueueProperties.Jdbc jdbc;

    public DelayQueueSchemaInitializer(DataSource dataSource, DelayQueueProperties.Jdbc jdbc) {
        this.dataSource = dataSource;
        this.jdbc = jdbc;
    }

    @Override
    public void afterPropertiesSet() {
        if (!jdbc.isInitializeSchema()) {
            return;
        }
        String history = jdbc.resolvedSchemaHistoryTable();
        int applied = new TaskSchema(dataSource, jdbc.getTableName(), history).migrate();
        if (applied > 0) {
            log.info("Applied {} migration(s) to the delay queue table {} (history in {})", applied,
                    jdbc.getTableName(), history);
        }
    }
}
