package io.github.delayqueue.sample;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's own Flyway and the queue's schema share an empty database with no Flyway setting at all: Spring
 * Boot's database initialization runs the application's migrations first, on the empty schema Flyway expects, and
 * the queue's after them. Were the queue first, Flyway would refuse the non-empty schema without a history table
 * unless {@code spring.flyway.baseline-on-migrate} were set.
 */
class OwnFlywayBesideTheQueueIT {

    @Test
    void theApplicationsMigrationsAndTheQueuesTableAreBothAppliedToAnEmptyDatabase() {
        TestDatabase database = TestServices.newDatabase();
        List<String> args = new ArrayList<>();
        for (String property : database.springProperties()) {
            args.add("--" + property);
        }
        args.add("--spring.data.redis.url=" + TestServices.redisUrl());
        args.add("--delay.redis.key-prefix=" + TestServices.newKeyPrefix());
        args.add("--spring.flyway.baseline-on-migrate=false"); // Flyway's default, whatever a properties file says
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrderServiceApplication.class)
            .web(WebApplicationType.NONE)
            .run(args.toArray(String[]::new))) {
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            assertThat(jdbc.queryForList("SELECT LOWER(table_name) FROM information_schema.tables "
                    + "WHERE table_schema = DATABASE()", String.class))
                .contains("orders", "flyway_schema_history", "delay_task", "delay_task_schema_history");
            assertThat(jdbc.queryForList("SELECT CONCAT(version, ':', type, ':', success) FROM flyway_schema_history "
                    + "ORDER BY installed_rank", String.class))
                .as("the application's own migrations, all of them, no baseline")
                .containsExactly("1:SQL:1", "2:SQL:1");
        }
    }
}
