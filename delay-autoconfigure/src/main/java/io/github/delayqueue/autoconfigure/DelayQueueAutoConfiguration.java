package io.github.delayqueue.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.runtime.ClockAligner;
import io.github.delayqueue.runtime.DefaultDelayQueue;
import io.github.delayqueue.runtime.DelayQueueEngine;
import io.github.delayqueue.runtime.EngineSettings;
import io.github.delayqueue.runtime.Indexer;
import io.github.delayqueue.runtime.QueueClock;
import io.github.delayqueue.runtime.TaskEvents;
import io.github.delayqueue.runtime.Tiers;
import io.github.delayqueue.runtime.WakeSignal;
import io.github.delayqueue.store.JdbcTaskStore;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
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
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.TaskScheduler;

/**
 * The delay queue, switched on by {@link EnableDelayQueue} on any configuration class: the task store on the
 * application's {@link DataSource} (schema applied by the queue's own Flyway, after the application's), the
 * {@link DelayQueue}, the handler scan, and, unless {@code delay.worker.enabled=false}, the engine that runs tasks.
 * Hybrid mode adds the Redis time index ({@link DelayQueueRedisConfiguration}). Every bean backs off when the
 * application defines its own.
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
    static DelayedHandlerRegistrar delayedHandlerRegistrar(ObjectProvider<HandlerRegistry> registry,
            ObjectProvider<DelayQueueProperties> properties) {
        return new DelayedHandlerRegistrar(registry, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    HandlerRegistry delayHandlerRegistry() {
        return new HandlerRegistry();
    }

    @Bean
    @ConditionalOnMissingBean
    QueueClock delayQueueClock(ObjectProvider<Clock> clock) {
        return new QueueClock(clock.getIfUnique(Clock::systemUTC));
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional(BoundPropertyCondition.DatabaseClock.class)
    ClockAligner delayClockAligner(QueueClock clock, TaskStore store, DelayQueueProperties properties,
            @Qualifier(DelayQueueThreadsConfiguration.SCHEDULER) TaskScheduler scheduler) {
        return new ClockAligner(scheduler, clock, store::currentTimeMicros, properties.getClock().getAlignInterval());
    }

    /** A database initializer to Spring Boot: the store, the engine and the inspector wait for it. */
    @Bean
    @ConditionalOnMissingBean
    DelayQueueSchemaInitializer delayQueueSchemaInitializer(ObjectProvider<DataSource> dataSource,
            DelayQueueProperties properties) {
        return new DelayQueueSchemaInitializer(requireDataSource(dataSource), properties.getJdbc());
    }

    @Bean
    @ConditionalOnMissingBean
    TaskStore delayTaskStore(ObjectProvider<DataSource> dataSource, DelayQueueProperties properties) {
        DataSource unique = requireDataSource(dataSource);
        String advice = JdbcTimeoutAdvice.check(unique);
        if (advice != null) {
            LoggerFactory.getLogger(DelayQueueAutoConfiguration.class).warn(advice);
        }
        return new JdbcTaskStore(unique, properties.getJdbc().getTableName(), properties.getWorker().getLease());
    }

    @Bean
    @ConditionalOnMissingBean
    PayloadCodec delayPayloadCodec(ObjectProvider<JsonMapper> jsonMapper, DelayQueueProperties properties) {
        return new JacksonPayloadCodec(jsonMapper.getIfUnique(() -> JsonMapper.builder().findAndAddModules().build()),
                properties.getPayload().isStrictBinding());
    }

    @Bean
    @ConditionalOnMissingBean
    WakeSignal delayWakeSignal(QueueClock clock) {
        return new WakeSignal(clock);
    }

    @Bean
    @ConditionalOnMissingBean
    Tiers delayTiers(DelayQueueProperties properties) {
        return properties.getMode() == DelayQueueProperties.Mode.HYBRID
                ? Tiers.hybrid(properties.getHybrid().getThreshold()) : Tiers.databaseOnly();
    }

    @Bean
    @ConditionalOnMissingBean
    RetryPolicy delayRetryPolicy(DelayQueueProperties properties) {
        DelayQueueProperties.Retry retry = properties.getRetry();
        return new RetryPolicy(retry.getMaxAttempts(),
                new Backoff(retry.getBackoff(), retry.getMultiplier(), retry.getMaxBackoff()));
    }

    @Bean
    @ConditionalOnMissingBean
    DelayQueue delayQueue(TaskStore store, ObjectProvider<Indexer> indexer, PayloadCodec codec,
            DelayQueueProperties properties, Tiers tiers, QueueClock clock, WakeSignal wake,
            ObjectProvider<TaskEvents> events, ObjectProvider<ClockAligner> aligner) {
        aligner.getIfAvailable(); // created, so aligned, before the first due time is computed
        return new DefaultDelayQueue(store, indexer.getIfAvailable(), codec,
                properties.getPayload().getMaxSize().toBytes(), tiers, clock, wake,
                TaskEvents.composite(events.orderedStream().toList()));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "delay.worker.enabled", matchIfMissing = true)
    DelayQueueEngine delayQueueEngine(DelayQueueProperties properties, TaskStore store,
            ObjectProvider<Indexer> indexer, HandlerRegistry registry, PayloadCodec codec, RetryPolicy retryPolicy,
            Tiers tiers, QueueClock clock, WakeSignal wake, ObjectProvider<TaskEvents> events,
            ObjectProvider<HandlerInvoker> invoker,
            @Qualifier(DelayQueueThreadsConfiguration.SCHEDULER) TaskScheduler scheduler,
            @Qualifier(DelayQueueThreadsConfiguration.HANDLER_EXECUTOR) Executor handlerExecutor) {
        return new DelayQueueEngine(engineSettings(properties), store, indexer.getIfAvailable(), registry, codec,
                retryPolicy, tiers, clock, wake, TaskEvents.composite(events.orderedStream().toList()),
                invoker.getIfAvailable(() -> HandlerInvoker.DIRECT), scheduler, handlerExecutor);
    }

    /** Where this instance runs tasks, a warning when it schedules a type none of its handlers serves. */
    @Bean
    @ConditionalOnBooleanProperty(name = "delay.worker.enabled", matchIfMissing = true)
    UnservedTypeWarning delayUnservedTypeWarning(HandlerRegistry registry) {
        return new UnservedTypeWarning(registry);
    }

    /**
     * The engine's second stop step: waits for running handlers after the web server has stopped. The engine comes
     * through a provider on purpose: a bean that depends on a lifecycle bean is stopped before it, whatever its phase.
     */
    @Bean
    @ConditionalOnBean(DelayQueueEngine.class)
    DelayQueueEngine.Drain delayQueueEngineDrain(ObjectProvider<DelayQueueEngine> engine) {
        return engine.getObject().drainLifecycle();
    }

    static EngineSettings engineSettings(DelayQueueProperties properties) {
        DelayQueueProperties.Worker worker = properties.getWorker();
        DelayQueueProperties.Hybrid hybrid = properties.getHybrid();
        DelayQueueProperties.Retention retention = properties.getRetention();
        Map<TaskStatus, Duration> keep = new EnumMap<>(TaskStatus.class);
        putIfSet(keep, TaskStatus.SUCCEEDED, retention.getSucceeded());
        putIfSet(keep, TaskStatus.CANCELLED, retention.getCancelled());
        putIfSet(keep, TaskStatus.FAILED, retention.getFailed());
        return new EngineSettings(InstanceIds.resolve(properties.getInstanceId()),
                new EngineSettings.Worker(worker.getThreads(), worker.getPrefetch(), worker.getBatchSize(),
                        worker.getClaimAhead(), worker.getLease(), worker.getShutdownTimeout(),
                        worker.getRecoveryInterval()),
                new EngineSettings.Jdbc(properties.getJdbc().getPollInterval()),
                new EngineSettings.Redis(properties.getRedis().getMaxWait()),
                new EngineSettings.Hybrid(hybrid.getSweepGrace(), hybrid.getSweepInterval(),
                        hybrid.getMigrationInterval(), hybrid.getMigrationBatchSize()),
                new EngineSettings.Retention(keep, retention.getInterval(), retention.getBatchSize()));
    }

    private static void putIfSet(Map<TaskStatus, Duration> map, TaskStatus status, @Nullable Duration duration) {
        if (duration != null) {
            map.put(status, duration);
        }
    }

    private static DataSource requireDataSource(ObjectProvider<DataSource> dataSource) {
        DataSource unique = dataSource.getIfUnique();
        if (unique == null) {
            throw new InvalidConfigurationPropertyValueException("spring.datasource.url", null,
                    "@EnableDelayQueue needs exactly one DataSource (MySQL 8 or MariaDB 10.6+) to store tasks in; "
                            + "configure spring.datasource.*, or mark one DataSource @Primary");
        }
        return unique;
    }
}
