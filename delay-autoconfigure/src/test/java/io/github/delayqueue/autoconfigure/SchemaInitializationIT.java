package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code delay.jdbc.initialize-schema} on a real, empty database, and the queue's schema as one of Spring Boot's
 * database initializers: what an application marks {@link DependsOnDatabaseInitialization} finds the task table.
 * The application's own Liquibase beside it needs no setting (its own Flyway: {@code OwnFlywayBesideTheQueueIT} in the
 * sample app).
 */
class SchemaInitializationIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
                DelayQueueAutoConfiguration.class))
        .withPropertyValues("delay.mode=jdbc", "delay.worker.enabled=false", "delay.clock.source=local");

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class Enabled {
    }

    /** An application bean that reads the task table as it is created, as a report or a warm-up might. */
    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class ReadsTheTaskTableAtStartup {

        @Bean
        @DependsOnDatabaseInitialization
        PendingAtStartup pendingAtStartup(DataSource dataSource) {
            return new PendingAtStartup(new JdbcTemplate(dataSource).queryForObject(
                    "SELECT COUNT(*) FROM delay_task WHERE status IN ('SCHEDULED', 'QUEUED')", Long.class));
        }
    }

    record PendingAtStartup(Long count) {
    }

    /** The application's beans are created before the queue's; Boot's ordering, not bean order, makes this work. */
    @Test
    void aBeanThatDependsOnDatabaseInitializationFindsTheTaskTable() {
        TestDatabase db = TestServices.newDatabase();
        runner.withUserConfiguration(ReadsTheTaskTableAtStartup.class)
            .withPropertyValues(db.springProperties())
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(PendingAtStartup.class).count()).isZero();
            });
    }

    @Test
    void alwaysCreatesTheTaskTable() {
        TestDatabase db = TestServices.newDatabase();
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues(db.springProperties())
            .withPropertyValues("delay.jdbc.initialize-schema=always")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(tables(db)).contains("delay_task", "delay_task_schema_history");
                context.getBean(DelayQueue.class).schedule("t", "x", Duration.ofMinutes(1));
            });
    }

    /**
     * The application's changelog runs first, on the empty database, and the queue's schema after it; an application
     * bean that waits for database initialization finds both.
     */
    @Test
    void theApplicationsOwnLiquibaseRunsBesideTheQueuesSchemaWithoutASetting() {
        TestDatabase db = TestServices.newDatabase();
        runner.withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
            .withUserConfiguration(ReadsTheTaskTableAtStartup.class)
            .withPropertyValues(db.springProperties())
            // on in this test only (see the test application.properties); the changelog is at Boot's default place
            .withPropertyValues("spring.liquibase.enabled=true")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(PendingAtStartup.class).count()).isZero();
                assertThat(tables(db)).contains("orders", "databasechangelog", "delay_task",
                        "delay_task_schema_history");
                assertThat(new JdbcTemplate(db.dataSource())
                    .queryForList("SELECT id FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED", String.class))
                    .containsExactly("orders-1");
            });
    }

    @Test
    void neverAndEmbeddedLeaveMySqlOrMariaDbAlone() {
        for (String mode : new String[] { "never", "embedded" }) {
            TestDatabase db = TestServices.newDatabase();
            runner.withUserConfiguration(Enabled.class)
                .withPropertyValues(db.springProperties())
                .withPropertyValues("delay.jdbc.initialize-schema=" + mode)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(tables(db)).as(mode).doesNotContain("delay_task", "delay_task_schema_history");
                });
        }
    }

    private static List<String> tables(TestDatabase db) {
        return new JdbcTemplate(db.dataSource()).queryForList(
                "SELECT LOWER(table_name) FROM information_schema.tables WHERE table_schema = DATABASE()",
                String.class);
    }
}
