package io.github.delayqueue.store;

import java.util.Locale;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How the server gives back the ids of a multi-row insert.
 *
 * @param returning MariaDB: {@code INSERT ... RETURNING id} names every id, whatever the driver (MariaDB
 *     Connector/J reports only the first generated key of a multi-row insert)
 * @param increment MySQL: the ids of one multi-row insert are consecutive (a "simple insert" in every
 *     {@code innodb_autoinc_lock_mode}) and {@code auto_increment_increment} apart, which is how Connector/J
 *     computes them too
 */
record GeneratedIds(boolean returning, int increment) {

    /** Asks the server which it is. */
    static GeneratedIds of(JdbcTemplate jdbc) {
        String version = jdbc.queryForObject("SELECT VERSION()", String.class);
        Integer increment = jdbc.queryForObject("SELECT @@auto_increment_increment", Integer.class);
        return new GeneratedIds(version != null && version.toLowerCase(Locale.ROOT).contains("mariadb"),
                increment == null ? 1 : increment);
    }
}
