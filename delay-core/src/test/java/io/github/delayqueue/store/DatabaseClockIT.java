package io.github.delayqueue.store;

import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's clock, the reference of every due time, reads the same instant whatever the session's time zone, also
 * in the hour that repeats when daylight saving time ends. Everything runs on one connection, so the session
 * settings the test makes are the ones the store's query sees.
 *
 * <p>It needs the server's named time zones, which MySQL and MariaDB leave empty until an administrator loads them
 * into the {@code mysql} system database: without them it is skipped, saying how to load them, unless
 * {@value TestServices#REQUIRE_TIME_ZONES} is {@code true} ({@code .ci/run} loads them and sets it).
 */
class DatabaseClockIT {

    /** 2025-10-26 02:30:00.5 CEST (UTC+2), in Berlin's first pass through 02:00-03:00. */
    private static final String FIRST_PASS = "1761438600.5";

    /** 2025-10-26 02:30:00.25 CET (UTC+1): the same wall-clock time one hour and a quarter second later. */
    private static final String SECOND_PASS = "1761442200.25";

    private SingleConnectionDataSource connection;

    private JdbcTemplate session;

    private JdbcTaskStore store;

    @BeforeEach
    void oneConnection() {
        TestDatabase db = TestServices.newDatabase();
        connection = new SingleConnectionDataSource(db.url(), db.user(), db.password(), true);
        session = new JdbcTemplate(connection);
        requireTimeZoneTables();
        store = new JdbcTaskStore(connection, "delay_task");
        session.execute("SET time_zone = 'Europe/Berlin'");
    }

    @AfterEach
    void close() {
        connection.destroy();
    }

    @Test
    void millisecondsAcrossTheAutumnOverlap() {
        at(FIRST_PASS);
        assertThat(store.currentTimeMillis()).as("02:30 CEST").isEqualTo(1_761_438_600_500L);
        at(SECOND_PASS);
        assertThat(store.currentTimeMillis()).as("02:30 CET, an hour later").isEqualTo(1_761_442_200_250L);
    }

    @Test
    void microsecondsAcrossTheAutumnOverlap() {
        at(FIRST_PASS);
        assertThat(store.currentTimeMicros()).as("02:30 CEST").isEqualTo(1_761_438_600_500_000L);
        at(SECOND_PASS);
        assertThat(store.currentTimeMicros()).as("02:30 CET, an hour later").isEqualTo(1_761_442_200_250_000L);
    }

    /** Pins the session's clock, and checks the session really is in the repeated hour, or the test proves nothing. */
    private void at(String epochSeconds) {
        session.execute("SET timestamp = " + epochSeconds);
        assertThat(session.queryForObject("SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i')", String.class))
            .as("local time in the session").isEqualTo("2025-10-26 02:30");
    }

    /** {@code CONVERT_TZ} answers NULL for a zone the server does not know; it needs no privilege to ask. */
    private void requireTimeZoneTables() {
        String berlin = session.queryForObject("SELECT CONVERT_TZ('2025-10-26 00:30:00', '+00:00', 'Europe/Berlin')",
                String.class);
        if (berlin == null) {
            TestServices.skipUnlessRequired(TestServices.REQUIRE_TIME_ZONES, "The test database knows no named time "
                    + "zones, so this test cannot set 'Europe/Berlin' to show the daylight-saving overlap. To run it, "
                    + "load them into the server's mysql database once (as an administrator): on MariaDB "
                    + "'mariadb-tzinfo-to-sql /usr/share/zoneinfo | mysql -uroot mysql', on MySQL "
                    + "'mysql_tzinfo_to_sql /usr/share/zoneinfo | mysql -uroot mysql' (.ci/run does it, and sets "
                    + TestServices.REQUIRE_TIME_ZONES + "=true so that the test cannot be skipped there)");
        }
    }
}
