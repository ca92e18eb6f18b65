package io.github.delayqueue.autoconfigure;

import javax.sql.DataSource;

import io.github.delayqueue.store.JdbcTaskInspector;
import io.github.delayqueue.store.TaskInspector;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link TaskInspector} the actuator parts share, imported by each of their auto-configurations, so it exists
 * only when one of them does. It waits for the schema like the task store does
 * ({@link DelayQueueDependsOnDatabaseInitializationDetector}).
 */
@Configuration(proxyBeanMethods = false)
class DelayQueueInspectorConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TaskInspector delayTaskInspector(ObjectProvider<DataSource> dataSource, DelayQueueProperties properties) {
        return new JdbcTaskInspector(dataSource.getObject(), properties.getJdbc().getTableName());
    }
}
