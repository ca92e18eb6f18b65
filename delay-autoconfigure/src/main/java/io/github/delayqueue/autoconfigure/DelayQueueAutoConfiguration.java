package io.github.delayqueue.autoconfigure;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.runtime.DelayQueueRuntimeBuilder;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.runtime.TraceContextSource;
import io.github.delayqueue.store.TaskInspector;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The delay queue, switched on by {@link EnableDelayQueue} on any configuration class: one
 * {@link DelayQueueRuntime} built from the {@code delay.*} properties (and any {@link DelayQueueRuntimeCustomizer})
 * on the application's {@link DataSource}, or the one marked {@link DelayQueueDataSource}; its {@link DelayQueue} and
 * {@link TaskInspector}; the handler scan; the task table's schema (applied by the queue's own Flyway, after the
 * application's); and the lifecycle that starts the runtime with the context and stops it in two steps around the web
 * server's graceful shutdown. Hybrid mode takes its time index from {@link DelayQueueRedisConfiguration}.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnBean(annotation = EnableDelayQueue.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
// Boot orders database initializers only where one of its auto-configurations imports this; the queue may be alone.
@Import({ DelayQueueThreadsConfiguration.class, DelayQueueRedisConfiguration.class,
        DatabaseInitializationDependencyConfigurer.class })
public final class DelayQueueAutoConfiguration {

    @Bean
    static DelayedHandlerRegistrar delayedHandlerRegistrar(ObjectProvider<DelayQueueProperties> properties) {
        return new DelayedHandlerRegistrar(properties);
    }

    /** A database initializer to Spring Boot: the runtime and the inspector wait for it. */
    @Bean
    @ConditionalOnMissingBean
    DelayQueueSchemaInitializer delayQueueSchemaInitializer(
            @DelayQueueDataSource ObjectProvider<DataSource> queueDataSource, ObjectProvider<DataSource> dataSource,
            DelayQueueProperties properties) {
        return new DelayQueueSchemaInitializer(queueDataSource(queueDataSource, dataSource), properties.getJdbc());
    }

    @Bean
    @ConditionalOnMissingBean
    PayloadCodec delayPayloadCodec(ObjectProvider<JsonMapper> jsonMapper, DelayQueueProperties properties) {
        return new JacksonPayloadCodec(jsonMapper.getIfUnique(() -> JsonMapper.builder().findAndAddModules().build()),
                properties.getPayload().isStrictBinding());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    DelayQueueRuntime delayQueueRuntime(@DelayQueueDataSource ObjectProvider<DataSource> queueDataSource,
            ObjectProvider<DataSource> dataSource, DelayQueueProperties properties, PayloadCodec codec,
            DelayedHandlerRegistrar handlers, ObjectProvider<TimeIndex> index, ObjectProvider<Clock> clock,
            ObjectProvider<TaskEvents> listeners, ObjectProvider<HandlerInvoker> invoker,
            ObjectProvider<TraceContextSource> traceContext,
            @Qualifier(DelayQueueThreadsConfiguration.SCHEDULER) TaskScheduler scheduler,
            @Qualifier(DelayQueueThreadsConfiguration.HANDLER_EXECUTOR) ObjectProvider<Executor> handlerExecutor,
            ObjectProvider<DelayQueueRuntimeCustomizer> customizers,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        DelayQueueRuntimeBuilder builder = DelayQueueRuntime.builder(queueDataSource(queueDataSource, dataSource))
            .handlerRegistry(handlers.registry())
            .payloadCodec(codec)
            .clock(clock.getIfUnique(Clock::systemUTC))
            .scheduler(scheduler);
        applyProperties(builder, properties);
        if (properties.getMode() == DelayQueueProperties.Mode.HYBRID) {
            builder.timeIndex(index.getObject());
        }
        listeners.orderedStream().forEach(builder::listener);
        invoker.ifAvailable(builder::handlerInvoker);
        // the application's, so a transactional handler's own @Transactional and repositories join the queue's
        transactionManager.ifUnique(builder::handlerTransactionManager);
        traceContext.ifAvailable(builder::traceContextSource);
        handlerExecutor.ifAvailable(builder::handlerExecutor);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    DelayQueue delayQueue(DelayQueueRuntime runtime) {
        return runtime.queue();
    }

    @Bean
    @ConditionalOnMissingBean
    TaskInspector delayTaskInspector(DelayQueueRuntime runtime) {
        return runtime.inspector();
    }

    @Bean
    DelayQueueLifecycle delayQueueLifecycle(DelayQueueRuntime runtime) {
        return new DelayQueueLifecycle(runtime);
    }

    @Bean
    DelayQueueLifecycle.Drain delayQueueDrain(DelayQueueRuntime runtime) {
        return new DelayQueueLifecycle.Drain(runtime);
    }

    /** Where this instance runs tasks, a warning when it schedules a type none of its handlers serves. */
    @Bean
    @ConditionalOnBooleanProperty(name = "delay.worker.enabled", matchIfMissing = true)
    UnservedTypeWarning delayUnservedTypeWarning(DelayedHandlerRegistrar handlers) {
        return new UnservedTypeWarning(handlers.registry());
    }

    /** Every {@code delay.*} property that the builder has a setting for. */
    static void applyProperties(DelayQueueRuntimeBuilder builder, DelayQueueProperties properties) {
        DelayQueueProperties.Worker worker = properties.getWorker();
        DelayQueueProperties.Hybrid hybrid = properties.getHybrid();
        DelayQueueProperties.Retention retention = properties.getRetention();
        DelayQueueProperties.Retry retry = properties.getRetry();
        builder.tableName(properties.getJdbc().getTableName())
            .pollInterval(properties.getJdbc().getPollInterval())
            .hybridThreshold(hybrid.getThreshold())
            .sweep(hybrid.getSweepGrace(), hybrid.getSweepInterval())
            .migration(hybrid.getMigrationInterval(), hybrid.getMigrationBatchSize())
            .indexMaxWait(properties.getRedis().getMaxWait())
            .runsTasks(worker.isEnabled())
            .instanceId(properties.getInstanceId())
            .pausedTypes(pausedTypes(properties))
            .workerThreads(worker.getThreads())
            .prefetch(worker.getPrefetch())
            .batchSize(worker.getBatchSize())
            .claimAhead(worker.getClaimAhead())
            .lease(worker.getLease())
            .shutdownTimeout(worker.getShutdownTimeout())
            .handlerTimeout(worker.getHandlerTimeout())
            .recoveryInterval(worker.getRecoveryInterval())
            .retry(retry.getMaxAttempts(), defaultBackoff(retry))
            .maxPayloadBytes(properties.getPayload().getMaxSize().toBytes())
            .retention(TaskStatus.SUCCEEDED, retention.getSucceeded())
            .retention(TaskStatus.CANCELLED, retention.getCancelled())
            .retention(TaskStatus.FAILED, retention.getFailed())
            .purge(retention.getInterval(), retention.getBatchSize())
            .databaseClockAlignment(properties.getClock().getSource() == DelayQueueProperties.ClockSource.DATABASE
                    ? properties.getClock().getAlignInterval() : null);
    }

    private static List<String> pausedTypes(DelayQueueProperties properties) {
        List<String> types = properties.getPausedTypes();
        return types == null ? List.of() : types;
    }

    static Backoff defaultBackoff(DelayQueueProperties.Retry retry) {
        return new Backoff(retry.getBackoff(), retry.getMultiplier(), retry.getMaxBackoff());
    }

    /** The {@link DelayQueueDataSource} if there is one, else the application's only or primary one. */
    static DataSource queueDataSource(ObjectProvider<DataSource> queueDataSource,
            ObjectProvider<DataSource> dataSource) {
        DataSource marked = queueDataSource.getIfUnique();
        if (marked != null) {
            return marked;
        }
        DataSource unique = dataSource.getIfUnique();
        if (unique == null) {
            throw new InvalidConfigurationPropertyValueException("spring.datasource.url", null,
                    "@EnableDelayQueue needs a DataSource (MySQL 8 or MariaDB 10.6+) to store tasks in; configure "
                            + "spring.datasource.*, or, with several DataSources, mark the queue's one "
                            + "@DelayQueueDataSource (or one @Primary)");
        }
        return unique;
    }
}
