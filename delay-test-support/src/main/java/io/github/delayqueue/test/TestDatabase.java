package io.github.delayqueue.test;

import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * A database created for this test run alone on the test server, dropped when the JVM exits.
 *
 * @param name the database (schema) name
 * @param url a JDBC URL that selects it
 * @param user the user
 * @param password the password
 */
public record TestDatabase(String name, String url, String user, String password) {

    /** A non-pooling {@link DataSource} on this database, for tests that need no Spring context. */
    public DataSource dataSource() {
        try {
            return new SimpleDriverDataSource(new com.mysql.cj.jdbc.Driver(), url, user, password);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("mysql-connector-j could not be loaded", ex);
        }
    }

    /** Spring properties that point {@code spring.datasource.*} at this database. */
    public String[] springProperties() {
        return new String[] { "spring.datasource.url=" + url, "spring.datasource.username=" + user,
                "spring.datasource.password=" + password };
    }
}
