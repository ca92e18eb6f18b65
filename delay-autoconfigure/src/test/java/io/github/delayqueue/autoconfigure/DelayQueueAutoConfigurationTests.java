package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.autoconfigure.QueueContexts.Enabled;
import io.github.delayqueue.autoconfigure.QueueContexts.InMemoryInspection;
import io.github.delayqueue.autoconfigure.QueueContexts.NotEnabled;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.PayloadBindingException;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.index.IndexAccess;
import io.github.delayqueue.index.RedisTimeIndex;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.InMemoryTimeIndex;
import io.github.delayqueue.test.SettableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link DelayQueueAutoConfiguration} (with {@link DelayQueueRedisConfiguration}) without a database or Redis: its
 * conditions, each bean backing off for one of the application's, the optional dependencies missing from the
 * classpath, jdbc and hybrid mode, the clock, the handler scan, property validation and schema settings. The store is
 * an {@link InMemoryTaskStore}, the {@link DataSource} refuses every connection ({@link QueueContexts}). What needs a
 * database is in {@code DelayQueueAutoConfigurationIT} and {@code SchemaInitializationIT}.
 */
class DelayQueueAutoConfigurationTests {

    /** What an application that excludes spring-boot-starter-data-redis from delay-starter has on its classpath. */
    static final FilteredClassLoader WITHOUT_REDIS = new FilteredClassLoader("org.springframework.data.redis",
            "io.lettuce");

    private static final long T0 = 1_750_000_000_000L;

    private final ApplicationContextRunner runner = QueueContexts.queue();

    /** With Spring Boot's health support, as spring-boot-starter-actuator brings it. */
    private final ApplicationContextRunner withHealth = runner
        .withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
                HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                DataRedisHealthContributorAutoConfiguration.class, DelayQueueHealthAutoConfiguration.class))
        .withUserConfiguration(InMemoryInspection.class)
        .withPropertyValues("management.endpoint.health.show-details=always");

    // --- on or off ----------------------------------------------------------------------------------------------

    @Test
    void withoutEnableDelayQueueNothingIsDefined() {
        runner.withUserConfiguration(NotEnabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayQueue.class);
            assertThat(context).doesNotHaveBean(DelayQueueProperties.class);
            assertThat(context).doesNotHaveBean(DelayQueueSchemaInitializer.class);
            assertThat(context).doesNotHaveBean(HandlerRegistry.class);
        });
    }

    @Test
    void enabledTheQueueStoresInTheApplicationsStoreAndNoEngineRunsWhenSwitchedOff() {
        runner.withUserConfiguration(Enabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(DelayQueue.class);
            assertThat(context).hasSingleBean(DelayQueueRuntime.class);
            assertThat(context).hasSingleBean(TaskInspector.class);
            assertThat(context).hasSingleBean(PayloadCodec.class);
            DelayQueueRuntime.Status status = context.getBean(DelayQueueRuntime.class).status();
            assertThat(status.mode()).isEqualTo(DelayQueueRuntime.Mode.JDBC);
            assertThat(status.instanceId()).as("no engine").isNull();
            assertThat(context).doesNotHaveBean(TimeIndex.class);

            long id = context.getBean(DelayQueue.class).schedule("t", "p", Duration.ofMinutes(5));

            assertThat(context.getBean(InMemoryTaskStore.class).find(id)).hasValueSatisfying(
                    task -> assertThat(task.status()).isEqualTo(TaskStatus.SCHEDULED));
            assertThat(context.getBean(RefusingDataSource.class).attempts()).isZero();
        });
    }

    @Test
    void withoutAStoreOfItsOwnTheQueueStoresInTheDataSourceThroughJdbc() {
        QueueContexts.bare()
            .withBean(DataSource.class, RefusingDataSource::new)
            .withUserConfiguration(Enabled.class)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DelayQueueRuntime.class).inspector().getClass().getSimpleName())
                    .isEqualTo("JdbcTaskInspector");
            });
    }

    @Test
    void withoutExactlyOneDataSourceStartupFailsNamingTheProperty() {
        QueueContexts.bare()
            .withUserConfiguration(Enabled.class)
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("spring.datasource.url")
                .hasMessageContaining("needs a DataSource"));
        QueueContexts.bare()
            .withUserConfiguration(Enabled.class)
            .withBean("orders", DataSource.class, RefusingDataSource::new)
            .withBean("reports", DataSource.class, RefusingDataSource::new)
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("@DelayQueueDataSource"));
    }

    // --- each bean backs off --------------------------------------------------------------------------------

    static Stream<Arguments> replaceableBeans() {
        return Stream.of(beanOfItsOwn(PayloadCodec.class, () -> new JacksonPayloadCodec(JsonMapper.builder().build())),
                beanOfItsOwn(DelayQueue.class, () -> unusable(DelayQueue.class)),
                beanOfItsOwn(TaskInspector.class, () -> new InMemoryTaskInspector(new InMemoryTaskStore())),
                beanOfItsOwn(DelayQueueRuntime.class, () -> DelayQueueRuntime.builder(new InMemoryTaskStore(),
                        new InMemoryTaskInspector(new InMemoryTaskStore())).runsTasks(false).build()),
                beanOfItsOwn(TimeIndex.class, () -> new InMemoryTimeIndex(1), "delay.mode=hybrid"));
    }

    private static <T> Arguments beanOfItsOwn(Class<T> type, Supplier<? extends T> bean, String... properties) {
        return Arguments.of(type, bean, properties);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("replaceableBeans")
    <T> void aBeanOfTheApplicationsReplacesTheQueues(Class<T> type, Supplier<T> bean, String[] properties) {
        T own = bean.get();
        runner.withUserConfiguration(Enabled.class)
            .withBean("own", type, () -> own)
            .withPropertyValues(properties)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(type);
                assertThat(context.getBean(type)).isSameAs(own);
            });
    }

    @Test
    void customizersChangeTheBuilderAfterThePropertiesInTheirOrder() {
        List<String> applied = new java.util.concurrent.CopyOnWriteArrayList<>();
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.worker.enabled=true", "delay.worker.shutdown-timeout=1s")
            .withBean("second", DelayQueueRuntimeCustomizer.class, () -> new Ordered(2, applied, false))
            .withBean("first", DelayQueueRuntimeCustomizer.class, () -> new Ordered(1, applied, true))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(applied).containsExactly("first", "second");
                assertThat(context.getBean(DelayQueueRuntime.class).status().instanceId())
                    .as("the customizer switched the engine off after the property switched it on").isNull();
            });
    }

    /** A customizer that records its order and may switch the engine off. */
    record Ordered(int order, List<String> applied, boolean producerOnly)
            implements DelayQueueRuntimeCustomizer, org.springframework.core.Ordered {

        @Override
        public void customize(io.github.delayqueue.runtime.DelayQueueRuntimeBuilder builder) {
            applied.add(order == 1 ? "first" : "second");
            if (producerOnly) {
                builder.runsTasks(false);
            }
        }

        @Override
        public int getOrder() {
            return order;
        }
    }

    // --- jdbc and hybrid mode -------------------------------------------------------------------------------

    @Test
    void jdbcModeRunsWithoutSpringDataRedisOnTheClasspath() {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withUserConfiguration(Enabled.class)
            .withClassLoader(WITHOUT_REDIS)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(DelayQueue.class);
                assertThat(context).doesNotHaveBean(TimeIndex.class);
                assertThat(context.getBean(DelayQueueRuntime.class).mode()).isEqualTo(DelayQueueRuntime.Mode.JDBC);
                assertThat(context).doesNotHaveBean("redisConnectionFactory");
            });
    }

    @Test
    void jdbcModeWithoutSpringDataRedisIsHealthy() {
        withHealth.withUserConfiguration(Enabled.class).withClassLoader(WITHOUT_REDIS).run(context -> {
            assertThat(context).hasNotFailed();
            CompositeHealthDescriptor health = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class)
                .health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getComponents()).containsOnlyKeys("delayQueue", "ping");
            IndicatedHealthDescriptor queue = (IndicatedHealthDescriptor) health.getComponents().get("delayQueue");
            assertThat(queue.getDetails()).containsEntry("mode", "jdbc").doesNotContainKey("redisReachable");
        });
    }

    /** Why the README says to exclude the Redis starter in jdbc mode: Boot checks a Redis it finds a client for. */
    @Test
    void withSpringDataRedisOnTheClasspathBootAddsARedisHealthComponentEvenInJdbcMode() {
        withHealth.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withUserConfiguration(Enabled.class)
            .run(context -> {
                assertThat(context).hasNotFailed();
                HealthContributorRegistry registry = context.getBean(HealthContributorRegistry.class);
                assertThat(registry.getContributor("redis")).isNotNull();
                assertThat(registry.getContributor("delayQueue")).isInstanceOf(DelayQueueHealthIndicator.class);
            });
    }

    @Test
    void hybridModeIndexesInTheApplicationsRedis() {
        runner.withUserConfiguration(Enabled.class)
            .withBean(RedisConnectionFactory.class, DelayQueueAutoConfigurationTests::redisNobodyConnectsTo)
            .withPropertyValues("delay.mode=hybrid", "delay.redis.key-prefix=shop", "delay.redis.shards=4",
                    "delay.hybrid.threshold=10m")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(TimeIndex.class)).isInstanceOfSatisfying(RedisTimeIndex.class, index -> {
                    assertThat(index.shards()).isEqualTo(4);
                    assertThat(IndexAccess.key(index, 3)).isEqualTo("shop:due:{shop:3}");
                });
                DelayQueueRuntime runtime = context.getBean(DelayQueueRuntime.class);
                assertThat(runtime.mode()).isEqualTo(DelayQueueRuntime.Mode.HYBRID);
                assertThat(runtime.indexShards()).isEqualTo(4);
                assertThat(runtime.hybridThreshold()).isEqualTo(Duration.ofMinutes(10));
            });
    }

    @Test
    void hybridIsTheDefaultMode() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withBean(DataSource.class, RefusingDataSource::new)
            .withUserConfiguration(QueueContexts.InMemoryStorage.class, Enabled.class)
            .withBean(TimeIndex.class, () -> new InMemoryTimeIndex(1))
            // every property of NO_SERVICES but the mode
            .withPropertyValues("delay.jdbc.initialize-schema=never", "delay.worker.enabled=false",
                    "delay.clock.source=local")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DelayQueueRuntime.class).mode()).isEqualTo(DelayQueueRuntime.Mode.HYBRID);
            });
    }

    /**
     * The mode is read twice, by a condition on the property's text and by binding it to an enum, and the two must
     * agree whatever the spelling the binder accepts: a trailing space (a properties file keeps it) or another case.
     */
    @ParameterizedTest(name = "delay.mode=\"{0}\"")
    @CsvSource(delimiter = '|', value = { "HYBRID", "Hybrid", "'hybrid '" })
    void hybridModeIsHybridHoweverItIsSpelled(String mode) {
        runner.withUserConfiguration(Enabled.class)
            .withBean(TimeIndex.class, () -> new InMemoryTimeIndex(1))
            .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                    new MapPropertySource("spelled", Map.of("delay.mode", mode))))
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DelayQueueRuntime.class).mode()).isEqualTo(DelayQueueRuntime.Mode.HYBRID);
                assertThat(context).as("the index the hybrid tiers need").hasSingleBean(TimeIndex.class);
            });
    }

    @Test
    void hybridModeUsesAnIndexOfTheApplicationsOwnWithoutRedis() {
        InMemoryTimeIndex index = new InMemoryTimeIndex(2);
        runner.withUserConfiguration(Enabled.class)
            .withBean(TimeIndex.class, () -> index)
            .withPropertyValues("delay.mode=hybrid")
            .withClassLoader(WITHOUT_REDIS)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(DelayQueueRuntime.class).indexShards()).isEqualTo(2);
            });
    }

    @Test
    void hybridModeWithoutSpringDataRedisFailsNamingTheWayOut() {
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.mode=hybrid")
            .withClassLoader(WITHOUT_REDIS)
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("spring-boot-starter-data-redis")
                .hasMessageContaining("delay.mode=jdbc"));
    }

    @Test
    void hybridModeWithoutExactlyOneRedisConnectionFactoryFailsNamingTheWayOut() {
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.mode=hybrid")
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("needs a RedisConnectionFactory"));
        runner.withUserConfiguration(Enabled.class)
            .withBean("one", RedisConnectionFactory.class, DelayQueueAutoConfigurationTests::redisNobodyConnectsTo)
            .withBean("two", RedisConnectionFactory.class, DelayQueueAutoConfigurationTests::redisNobodyConnectsTo)
            .withPropertyValues("delay.mode=hybrid")
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("needs a RedisConnectionFactory"));
    }

    @Test
    void inHybridModeAWorkerRunsTheEngineAndAProducerOnlyInstanceDoesNot() {
        ApplicationContextRunner hybrid = runner.withUserConfiguration(Enabled.class)
            .withBean(TimeIndex.class, () -> new InMemoryTimeIndex(1))
            .withPropertyValues("delay.mode=hybrid", "delay.worker.shutdown-timeout=1s");
        hybrid.run(context -> assertThat(context.getBean(DelayQueueRuntime.class).status().instanceId()).isNull());
        hybrid.withPropertyValues("delay.worker.enabled=true").run(context -> {
            assertThat(context).hasNotFailed();
            DelayQueueRuntime.Status status = context.getBean(DelayQueueRuntime.class).status();
            assertThat(status.instanceId()).isNotNull();
            assertThat(status.running()).isTrue();
            assertThat(context).hasSingleBean(DelayQueueLifecycle.Drain.class);
        });
    }

    // --- the clock ------------------------------------------------------------------------------------------

    @Test
    void theQueueReadsTheApplicationsClock() {
        runner.withUserConfiguration(Enabled.class)
            .withBean(Clock.class, () -> SettableClock.atMillis(T0))
            .run(context -> assertThat(context.getBean(DelayQueueRuntime.class).now().toEpochMilli()).isEqualTo(T0));
    }

    @Test
    void onTheDatabaseClockTheQueueAlignsToTheStoresClock() {
        SettableClock database = SettableClock.atMillis(T0 + 3_600_000);
        ApplicationContextRunner aligned = QueueContexts.bare()
            .withUserConfiguration(Enabled.class)
            .withBean(DataSource.class, RefusingDataSource::new)
            .withBean(InMemoryTaskStore.class, () -> new InMemoryTaskStore(database))
            .withUserConfiguration(QueueContexts.InMemoryStore.class)
            .withBean(Clock.class, () -> SettableClock.atMillis(T0));
        for (String source : List.of("database", "DATABASE", "database ")) { // a properties file keeps the space
            aligned.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                    new MapPropertySource("spelled", Map.of("delay.clock.source", source)))).run(context -> {
                        assertThat(context.getBean(DelayQueueRuntime.class).now().toEpochMilli())
                            .as("delay.clock.source=\"%s\"", source).isEqualTo(T0 + 3_600_000);
                    });
        }
        aligned.run(context -> {
            assertThat(context.getBean(DelayQueueRuntime.class).now().toEpochMilli()).isEqualTo(T0);
        });
    }

    // --- handlers -------------------------------------------------------------------------------------------

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class WithHandlers {

        @Bean
        OrderTimeouts orderTimeouts() {
            return new OrderTimeouts();
        }
    }

    static class OrderTimeouts {

        final List<String> cancelled = new CopyOnWriteArrayList<>();

        @DelayedHandler(type = "${orders.cancel-type:order.cancel}", maxAttempts = 5, concurrency = 2,
                backoff = "${orders.backoff:2s}")
        void cancel(String order, TaskContext context) {
            cancelled.add(order + "#" + context.attempt());
        }

        @DelayedHandler(type = "order.remind")
        void remind() {
        }
    }

    @Test
    void handlerMethodsAreRegisteredWithTheirResolvedAttributes() {
        runner.withUserConfiguration(WithHandlers.class)
            .withPropertyValues("orders.cancel-type=orders.cancel-unpaid", "delay.retry.multiplier=3")
            .run(context -> {
                HandlerRegistry registry = context.getBean(DelayedHandlerRegistrar.class).registry();
                assertThat(registry.find("orders.cancel-unpaid")).isNotNull();
                assertThat(registry.find("order.remind")).isNotNull();
                assertThat(registry.find("orders.cancel-unpaid").settings()).isEqualTo(new HandlerSettings(5,
                        new Backoff(Duration.ofSeconds(2), 3.0, Duration.ofHours(1)), 2));
                assertThat(registry.find("order.remind").settings()).isEqualTo(new HandlerSettings(null, null, 0));
            });
    }

    /** The whole path on the in-memory store: schedule, claim, start, run, write the result. */
    @Test
    void theEngineRunsADueTasksHandlerOnTheApplicationsStore() {
        runner.withUserConfiguration(WithHandlers.class)
            .withPropertyValues("delay.worker.enabled=true", "delay.worker.shutdown-timeout=2s")
            .run(context -> {
                assertThat(context).hasNotFailed();
                long id = context.getBean(DelayQueue.class).schedule("order.cancel", "42", Duration.ZERO);

                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(context
                    .getBean(InMemoryTaskStore.class)
                    .find(id)).hasValueSatisfying(task -> {
                        assertThat(task.status()).isEqualTo(TaskStatus.SUCCEEDED);
                        assertThat(task.attempts()).isEqualTo(1);
                    }));
                assertThat(context.getBean(OrderTimeouts.class).cancelled).containsExactly("42#1");
            });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class TwoHandlersForOneType {

        @Bean
        First first() {
            return new First();
        }

        @Bean
        Second second() {
            return new Second();
        }
    }

    static class First {

        @DelayedHandler(type = "dup")
        void handle(String payload) {
        }
    }

    static class Second {

        @DelayedHandler(type = "${dup.type:dup}")
        void handleToo(String payload, TaskContext context) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class BadSignature {

        @Bean
        TwoPayloads twoPayloads() {
            return new TwoPayloads();
        }
    }

    static class TwoPayloads {

        @DelayedHandler(type = "bad")
        void handle(String payload, Long other) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class BadBackoff {

        @Bean
        Object badBackoffHandler() {
            return new Object() {
                @DelayedHandler(type = "b", backoff = "soon")
                void handle() {
                }
            };
        }
    }

    @Test
    void aHandlerThatCannotBeRegisteredFailsStartupNamingIt() {
        runner.withUserConfiguration(TwoHandlersForOneType.class)
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("'dup'")
                .hasMessageContaining("First.handle(String)")
                .hasMessageContaining("Second.handleToo(String, TaskContext)"));
        runner.withUserConfiguration(BadSignature.class)
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("TwoPayloads.handle(String, Long)")
                .hasMessageContaining("more than one payload parameter"));
        runner.withUserConfiguration(BadBackoff.class)
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@DelayedHandler on")
                .hasStackTraceContaining("invalid backoff (backoff=\"soon\""));
    }

    // --- payload binding ------------------------------------------------------------------------------------

    /** A handler's payload record. */
    record Order(Long id, String customer) {
    }

    /** Another record, stored under the handler's type by mistake. */
    record Mail(String to) {
    }

    @Test
    void payloadsBindStrictlyUnlessThePropertyRelaxesIt() {
        String mail = "{\"to\":\"ada@example.org\"}";
        runner.withUserConfiguration(Enabled.class).run(context -> {
            PayloadCodec codec = context.getBean(PayloadCodec.class);
            assertThatExceptionOfType(PayloadBindingException.class).as("strict by default")
                .isThrownBy(() -> codec.decode(mail, Order.class));
        });
        runner.withUserConfiguration(Enabled.class).withPropertyValues("delay.payload.strict-binding=false")
            .run(context -> assertThat(context.getBean(PayloadCodec.class).decode(mail, Order.class))
                .isEqualTo(new Order(null, null)));
        runner.withUserConfiguration(Enabled.class).withPropertyValues("delay.payload.strict-binding=maybe")
            .run(context -> assertThat(context).getFailure()
                .as("a boolean needs no rule of its own: Boot's binder names it")
                .hasStackTraceContaining("delay.payload.strict-binding"));
    }

    // --- properties -----------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "delay.worker.threads=0           | delay.worker.threads must be at least 1",
        "delay.worker.lease=500ms         | delay.worker.lease must be at least 1s",
        "delay.worker.claim-ahead=2s      | delay.worker.claim-ahead must be at most 1s",
        "delay.jdbc.poll-interval=0s      | delay.jdbc.poll-interval must be a positive duration",
        "delay.jdbc.schema-history-table=delay_task | delay.jdbc.schema-history-table must not be the task table",
        "delay.hybrid.sweep-grace=-1s     | delay.hybrid.sweep-grace must not be negative",
        "delay.hybrid.migration-batch-size=0 | delay.hybrid.migration-batch-size must be at least 1",
        "delay.redis.shards=0             | delay.redis.shards must be between 1 and 1024",
        "delay.redis.key-prefix=a{b}      | delay.redis.key-prefix must be non-empty, without spaces or braces",
        "delay.retry.multiplier=0.5       | delay.retry.multiplier must be a number of at least 1",
        "delay.retry.max-backoff=1s       | delay.retry.max-backoff must not be shorter than delay.retry.backoff",
        "delay.payload.max-size=0B        | delay.payload.max-size must be between 1B and",
        "delay.retention.succeeded=-1s    | delay.retention.succeeded must be a positive duration",
        "delay.retention.batch-size=0     | delay.retention.batch-size must be at least 1",
        "delay.clock.align-interval=0s    | delay.clock.align-interval must be a positive duration" })
    void aBadValueFailsStartupNamingTheProperty(String property, String message) {
        runner.withUserConfiguration(Enabled.class).withPropertyValues(property).run(context -> assertThat(context)
            .getFailure()
            .rootCause()
            .isInstanceOf(BindValidationException.class)
            .hasMessageContaining(message));
    }

    @Test
    void anUnknownModeFailsStartupNamingTheProperty() {
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.mode=redis")
            .run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("Failed to bind properties under 'delay.mode'"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class OwnSchemaInitializer {

        @Bean
        DelayQueueSchemaInitializer mySchemaInitializer(DataSource dataSource, DelayQueueProperties properties) {
            return new DelayQueueSchemaInitializer(dataSource, properties.getJdbc());
        }
    }

    /** Once the rules ran in the initializer's bean method, which a bean of the application's replaced. */
    @Test
    void aBadPropertyFailsWhileBindingWhicheverBeansTheApplicationReplaces() {
        runner.withUserConfiguration(OwnSchemaInitializer.class)
            .withPropertyValues("delay.worker.threads=0", "delay.worker.claim-ahead=2s")
            .run(context -> {
                assertThat(context).getFailure()
                    .rootCause()
                    .isInstanceOf(BindValidationException.class)
                    .hasMessageContaining("delay.worker.threads must be at least 1")
                    .hasMessageContaining("delay.worker.claim-ahead must be at most 1s");
                assertThat(((BindValidationException) rootCause(context.getStartupFailure())).getValidationErrors()
                    .getAllErrors()).hasSize(2)
                    .allSatisfy(error -> assertThat(Origin.from(error)).as("origin of %s", error).isNotNull());
            });
        runner.withUserConfiguration(OwnSchemaInitializer.class)
            .withPropertyValues("delay.jdbc.table-name=tasks; DROP TABLE x")
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("delay.jdbc.table-name must be a table name"));
    }

    @Test
    void aPausedTypeThatCannotBeATypeFailsWhileBindingNamingTheProperty() {
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.paused-types=mail.send," + "x".repeat(129))
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(BindValidationException.class)
                .hasMessageContaining("delay.paused-types each type must be 1 to 128 characters"));
    }

    @Test
    void aRuleBetweenTwoPropertiesNamesBoth() {
        runner.withUserConfiguration(Enabled.class)
            .withBean(TimeIndex.class, () -> new InMemoryTimeIndex(1))
            .withPropertyValues("delay.mode=hybrid", "delay.hybrid.threshold=10s",
                    "delay.hybrid.migration-interval=30s")
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(BindValidationException.class)
                .hasMessageContaining("delay.hybrid.migration-interval must be shorter than delay.hybrid.threshold"));
    }

    @Test
    void badHealthAndMetricsValuesFailWhileBinding() {
        withHealth.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.health.max-overdue=-5s")
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(BindValidationException.class)
                .hasMessageContaining("delay.health.max-overdue must be a positive duration"));
        runner.withUserConfiguration(Enabled.class, InMemoryInspection.class)
            .withConfiguration(AutoConfigurations.of(DelayQueueMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("delay.metrics.refresh-interval=0s")
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(BindValidationException.class)
                .hasMessageContaining("delay.metrics.refresh-interval must be a positive duration"));
    }

    // --- the schema -----------------------------------------------------------------------------------------

    /** {@code embedded} and {@code always} against a real database are in {@code SchemaInitializationIT}. */
    @Test
    void initializeSchemaTakesBootsDatabaseInitializationModes() {
        runner.withUserConfiguration(Enabled.class).run(context -> {
            assertThat(context.getBean(DelayQueueProperties.class).getJdbc().getInitializeSchema())
                .isEqualTo(DatabaseInitializationMode.NEVER);
            assertThat(context.getBean(RefusingDataSource.class).attempts())
                .as("never: the schema initializer did not even connect").isZero();
        });
        assertThat(new DelayQueueProperties().getJdbc().getInitializeSchema())
            .isEqualTo(DatabaseInitializationMode.ALWAYS);
    }

    @Test
    void initializingTheSchemaWithoutFlywaySaysWhatToAddOrSet() {
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.jdbc.initialize-schema=always")
            .withClassLoader(new FilteredClassLoader("org.flywaydb"))
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("delay.jdbc.initialize-schema")
                .hasMessageContaining("flyway-core")
                .hasMessageContaining("delay.jdbc.initialize-schema=never"));
        runner.withUserConfiguration(Enabled.class)
            .withClassLoader(new FilteredClassLoader("org.flywaydb"))
            .run(context -> assertThat(context).hasNotFailed());
    }

    /** Spring Boot's database initialization, not a constructor parameter, makes the queue's beans wait for it. */
    @Test
    void theQueuesBeansWaitForTheSchemaThroughBootsDatabaseInitialization() {
        withHealth.withUserConfiguration(Enabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            for (String bean : new String[] { "delayQueueRuntime", "userTaskInspector" }) {
                assertThat(context.getBeanFactory().getBeanDefinition(bean).getDependsOn()).as(bean)
                    .contains("delayQueueSchemaInitializer");
            }
            assertThat(context.getBeanFactory().getBeanDefinition("delayQueueSchemaInitializer").getDependsOn())
                .as("an initializer itself waits only for initializers ordered before it")
                .satisfiesAnyOf(dependsOn -> assertThat(dependsOn).isNull(), dependsOn -> assertThat(
                        Arrays.asList(dependsOn)).doesNotContain("delayQueueSchemaInitializer"));
        });
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.worker.enabled=true", "delay.worker.shutdown-timeout=1s")
            .run(context -> assertThat(context.getBeanFactory()
                .getBeanDefinition(context.getBeanNamesForType(DelayQueueRuntime.class)[0])
                .getDependsOn()).contains("delayQueueSchemaInitializer"));
    }

    @Test
    void theSchemaInitializerIsOrderedAfterFlywayLiquibaseAndSqlScripts() {
        assertThat(DelayQueueDatabaseInitializerDetector.ORDER).isGreaterThan(1) // Flyway's 1, Liquibase's 0
            .isGreaterThan(Integer.MAX_VALUE - 100); // DataSourceScriptDatabaseInitializerDetector's
    }

    // --- helpers --------------------------------------------------------------------------------------------

    /** A Redis the context never connects to: nothing listens where it points. */
    private static LettuceConnectionFactory redisNobodyConnectsTo() {
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
    }

    /** A bean of the application's that only has to be there: every call fails. */
    @SuppressWarnings("unchecked")
    private static <T> T unusable(Class<T> type) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return method.getName().equals("toString") ? "an application's " + type.getSimpleName()
                        : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : proxy == args[0];
            }
            throw new UnsupportedOperationException(method.getName());
        });
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
