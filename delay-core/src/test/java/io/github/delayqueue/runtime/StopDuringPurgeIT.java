package io.github.delayqueue.runtime;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application stops while the retention purge's statement is on its way, then closes its pool, as a Spring
 * context does (lifecycle stop, then the DataSource bean's close), on the real database with both drivers. The stop
 * returns once the statement has ended, so the pool does not cut it: the rows are purged, and no "Connection is
 * closed" failure is logged (before, the pool aborted the statement and the purge warned that it failed and would
 * retry, at every shutdown that fell in a purge).
 */
@ExtendWith(OutputCaptureExtension.class)
class StopDuringPurgeIT {

    private static final int ROWS = 50;

    @ParameterizedTest
    @ValueSource(strings = { "mysql", "mariadb" })
    void aStopWaitsForThePurgeStatementBeforeThePoolCloses(String driver, CapturedOutput output) throws Exception {
        TestDatabase database = TestServices.newDatabase();
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(database.url(driver));
        pool.setUsername(database.user());
        pool.setPassword(database.password());
        DelayQueueRuntime runtime = DelayQueueRuntime.builder(pool)
            .initializeSchema(true)
            .retention(TaskStatus.SUCCEEDED, Duration.ofMinutes(1))
            .purge(Duration.ofMillis(100), ROWS)
            .build();
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        for (int i = 0; i < ROWS; i++) { // finished an hour ago
            jdbc.update("INSERT INTO `delay_task` (task_type, payload, due_at, status, attempts, created_at, "
                    + "updated_at) VALUES ('purged', '{}', 0, 'SUCCEEDED', 1, 0, ?)",
                    System.currentTimeMillis() - 3_600_000);
        }
        try (Connection locker = database.dataSource().getConnection()) {
            // another transaction holds the finished rows, so the purge's DELETE waits for it
            locker.setAutoCommit(false);
            try (Statement statement = locker.createStatement()) {
                statement.executeQuery("SELECT id FROM `delay_task` WHERE task_type = 'purged' FOR UPDATE").close();
            }
            runtime.start();
            await("the purge's DELETE waits for the rows").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)) // InnoDB refreshes INNODB_TRX only after 100 ms unread
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.INNODB_TRX "
                        + "WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE 'DELETE%'", Integer.class) > 0);

            // the statement goes on 300 ms into the stop, then ends (a thread of its own: the common pool may be busy)
            Thread release = new Thread(() -> {
                sleep(300);
                commit(locker);
            }, "release-rows");
            release.start();
            runtime.stop();
            pool.close();
            release.join(TimeUnit.SECONDS.toMillis(30));
        }
        finally {
            runtime.close();
            pool.close();
        }

        JdbcTemplate after = new JdbcTemplate(database.dataSource());
        assertThat(after.queryForObject("SELECT COUNT(*) FROM `delay_task` WHERE task_type = 'purged'", Integer.class))
            .as("the purge's statement ended before the pool closed, and deleted the rows").isZero();
        assertThat(output.getOut()).doesNotContain("The retention purge failed")
            .doesNotContain("Connection is closed");
    }

    private static void commit(Connection connection) {
        try {
            connection.commit();
        }
        catch (java.sql.SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
