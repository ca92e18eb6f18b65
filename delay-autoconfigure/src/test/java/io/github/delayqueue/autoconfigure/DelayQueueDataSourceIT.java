package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue on the second of two {@code DataSource}s, marked {@link DelayQueueDataSource}, as Spring Boot's Quartz
 * support does it: the task table is created there, tasks are stored and run there, and the application's primary
 * {@code DataSource} is never touched.
 */
class DelayQueueDataSourceIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, DelayQueueAutoConfiguration.class))
        .withPropertyValues("delay.mode=jdbc", "delay.clock.source=local", "delay.jdbc.poll-interval=50ms",
                "delay.worker.shutdown-timeout=2s");

    @Test
    void theQueueKeepsItsTasksInTheDataSourceMarkedForIt() {
        TestDatabase queueDatabase = TestServices.newDatabase();
        runner.withUserConfiguration(TwoDataSources.class, Handlers.class)
            .withBean("queueDatabase", TestDatabase.class, () -> queueDatabase)
            .run(context -> {
                assertThat(context).hasNotFailed();
                long id = context.getBean(DelayQueue.class).schedule("report.build", "monthly", Duration.ZERO);
                await().atMost(Duration.ofSeconds(20))
                    .until(() -> context.getBean(Handlers.class).built.contains("monthly"));

                JdbcTemplate queueTables = new JdbcTemplate(queueDatabase.dataSource());
                assertThat(queueTables.queryForObject("SELECT task_type FROM delay_task WHERE id = ?", String.class,
                        id)).isEqualTo("report.build");
                assertThat(context.getBean("applicationDataSource", RefusingDataSource.class).attempts())
                    .as("the application's primary DataSource").isZero();
            });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class TwoDataSources {

        @Bean
        @Primary
        RefusingDataSource applicationDataSource() {
            return new RefusingDataSource();
        }

        @Bean
        @DelayQueueDataSource
        DataSource queueDataSource(TestDatabase queueDatabase) {
            return queueDatabase.dataSource();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Handlers {

        final List<String> built = new CopyOnWriteArrayList<>();

        @DelayedHandler(type = "report.build")
        void build(String report) {
            built.add(report);
        }
    }
}
