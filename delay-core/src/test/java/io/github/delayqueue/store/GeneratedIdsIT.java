package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ids of a multi-row insert read back the way MySQL gives them (the first generated key; MySQL has no
 * {@code RETURNING}), forced here on MariaDB, whose own path reads every id from {@code INSERT ... RETURNING}: they
 * must be the rows' ids even after the session's {@code auto_increment_increment} changed on the pooled connection.
 */
class GeneratedIdsIT {

    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void idsReadFromTheFirstKeyFollowTheSessionsIncrement(String driver) throws SQLException {
        TestDatabase db = TestServices.newDatabase();
        new TaskSchema(db.dataSource(), "delay_task", "delay_task_schema_history").migrate();
        try (HikariDataSource dataSource = new HikariDataSource()) {
            dataSource.setJdbcUrl(db.url(driver));
            dataSource.setUsername(db.user());
            dataSource.setPassword(db.password());
            dataSource.setMaximumPoolSize(1); // one connection: every statement below runs on the same session
            try (Connection connection = dataSource.getConnection()) {
                JdbcTemplate jdbc = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
                GeneratedIds fromFirstKey = new GeneratedIds(false); // MySQL's way
                Long session = jdbc.queryForObject("SELECT CONNECTION_ID()", Long.class);

                List<Long> ids = new ArrayList<>(write(jdbc, connection, fromFirstKey, "before", false));
                jdbc.execute("SET SESSION auto_increment_increment = 7");
                ids.addAll(write(jdbc, connection, fromFirstKey, "plain", false));
                ids.addAll(write(jdbc, connection, fromFirstKey, "keyed", true));

                assertThat(jdbc.queryForObject("SELECT CONNECTION_ID()", Long.class)).as("the same session")
                    .isEqualTo(session);
                List<String> payloads = new ArrayList<>();
                for (long id : ids) {
                    payloads.add(jdbc.query("SELECT payload FROM delay_task WHERE id = ?",
                            (rs, row) -> rs.getString(1), id).stream().findFirst().orElse("no row " + id));
                }
                assertThat(payloads).as("the rows of the ids returned, in order (ids %s)", ids).containsExactly(
                        "\"before0\"", "\"before1\"", "\"before2\"", "\"plain0\"", "\"plain1\"", "\"plain2\"",
                        "\"keyed0\"", "\"keyed1\"", "\"keyed2\"");
            }
        }
    }

    private static List<Long> write(JdbcTemplate jdbc, Connection connection, GeneratedIds ids, String name,
            boolean keyed) {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            tasks.add(new NewTask("t", keyed ? name + i : null, "\"" + name + i + "\"", 1_000, TaskStatus.SCHEDULED,
                    null));
        }
        return new InsertBatch(TableNames.quoted("delay_task"), onIt -> ids, tasks, 1_000)
            .write(jdbc, InsertProgress.autocommitted(connection), false).stream().map(InsertedTask::id).toList();
    }
}
