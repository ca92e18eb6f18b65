package io.github.delayqueue.autoconfigure;

import java.util.Arrays;

import javax.sql.DataSource;

import io.github.delayqueue.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.engine.DelayQueueEngine;
import io.github.delayqueue.engine.Indexer;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.store.TaskStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

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

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * The auto-configuration's conditions, back-off, property validation and schema settings, without a database: the
 * store, the inspector and the {@link DataSource} are mocks, the schema is left alone
 * ({@code delay.jdbc.initialize-schema=never}), the engine off and the clock local. What needs a database is in
 * {@code DelayQueueAutoConfigurationIT} and {@code SchemaInitializationIT}.
 */
class DelayQueueAutoConfigurationTests {

    /** What an application that excludes spring-boot-starter-data-redis from delay-starter has on its classpath. */
    static final FilteredClassLoader WITHOUT_REDIS = new FilteredClassLoader("org.springframework.data.redis",
            "io.lettuce");

    private final DataSource dataSource = mock(DataSource.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DelayQueueAutoConfiguration.class))
        .withBean(DataSource.class, () -> dataSource)
        .withBean("userTaskStore", TaskStore.class, () -> mock(TaskStore.class))
        .withPropertyValues("delay.mode=jdbc", "delay.jdbc.initialize-schema=never", "delay.worker.enabled=false",
                "delay.clock.source=local");

    /** With Spring Boot's health support, as spring-boot-starter-actuator brings it. */
    private final ApplicationContextRunner withHealth = runner
        .withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
                HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
                DataRedisHealthContributorAutoConfiguration.class, DelayQueueHealthAutoConfiguration.class))
        .withBean("userTaskInspector", TaskInspector.class, DelayQueueAutoConfigurationTests::idleInspector)
        .withPropertyValues("management.endpoint.health.show-details=always");

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class Enabled {
    }

    @Configuration(proxyBeanMethods = false)
    static class NotEnabled {
    }

    @Test
    void withoutEnableDelayQueueNothingIsDefined() {
        runner.withUserConfiguration(NotEnabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayQueue.class);
            assertThat(context).doesNotHaveBean(DelayQueueProperties.class);
            assertThat(context).doesNotHaveBean(DelayQueueSchemaInitializer.class);
        });
    }

    @Test
    void jdbcModeRunsWithoutSpringDataRedisOnTheClasspath() {
        runner.withUserConfiguration(Enabled.class).withClassLoader(WITHOUT_REDIS).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(DelayQueue.class);
            assertThat(context).doesNotHaveBean(TimeIndex.class);
            assertThat(context).doesNotHaveBean(Indexer.class);
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
        withHealth.withUserConfiguration(Enabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            HealthContributorRegistry registry = context.getBean(HealthContributorRegistry.class);
            assertThat(registry.getContributor("redis")).isNotNull();
            assertThat(registry.getContributor("delayQueue")).isInstanceOf(DelayQueueHealthIndicator.class);
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
    void aRuleBetweenTwoPropertiesNamesBoth() {
        runner.withUserConfiguration(Enabled.class)
            .withBean(TimeIndex.class, () -> mock(TimeIndex.class))
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
        runner.withUserConfiguration(Enabled.class)
            .withConfiguration(AutoConfigurations.of(DelayQueueMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean("userTaskInspector", TaskInspector.class, DelayQueueAutoConfigurationTests::idleInspector)
            .withPropertyValues("delay.metrics.refresh-interval=0s")
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(BindValidationException.class)
                .hasMessageContaining("delay.metrics.refresh-interval must be a positive duration"));
    }

    /** {@code embedded} and {@code always} against a real database are in {@code SchemaInitializationIT}. */
    @Test
    void initializeSchemaTakesBootsDatabaseInitializationModes() {
        runner.withUserConfiguration(Enabled.class).run(context -> {
            assertThat(context.getBean(DelayQueueProperties.class).getJdbc().getInitializeSchema())
                .isEqualTo(DatabaseInitializationMode.NEVER);
            verifyNoInteractions(dataSource); // never: the schema initializer did not even connect
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
            for (String bean : new String[] { "userTaskStore", "userTaskInspector" }) {
                assertThat(context.getBeanFactory().getBeanDefinition(bean).getDependsOn()).as(bean)
                    .contains("delayQueueSchemaInitializer");
            }
            assertThat(context.getBeanFactory().getBeanDefinition("delayQueueSchemaInitializer").getDependsOn())
                .as("an initializer itself waits only for initializers ordered before it")
                .satisfiesAnyOf(dependsOn -> assertThat(dependsOn).isNull(), dependsOn -> assertThat(
                        Arrays.asList(dependsOn)).doesNotContain("delayQueueSchemaInitializer"));
        });
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.worker.enabled=true")
            .withBean(DelayQueueEngine.class, () -> mock(DelayQueueEngine.class))
            .run(context -> assertThat(context.getBeanFactory()
                .getBeanDefinition(context.getBeanNamesForType(DelayQueueEngine.class)[0])
                .getDependsOn()).contains("delayQueueSchemaInitializer"));
    }

    @Test
    void theSchemaInitializerIsOrderedAfterFlywayLiquibaseAndSqlScripts() {
        assertThat(DelayQueueDatabaseInitializerDetector.ORDER).isGreaterThan(1) // Flyway's 1, Liquibase's 0
            .isGreaterThan(Integer.MAX_VALUE - 100); // DataSourceScriptDatabaseInitializerDetector's
    }

    static TaskInspector idleInspector() {
        TaskInspector inspector = mock(TaskInspector.class);
        given(inspector.overdue(anyLong()))
            .willReturn(new TaskInspector.Overdue(TaskInspector.Count.exact(0), null));
        return inspector;
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
