package io.github.delayqueue.testservices;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

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
        return new DriverManagerDataSource(url, user, password);
    }

    /** The URL of this database for MySQL Connector/J ({@code jdbc:mysql:}), whichever the suite was given. */
    public String mysqlUrl() {
        return url.replaceFirst("^jdbc:mariadb:", "jdbc:mysql:");
    }

    /** The URL of this database for MariaDB Connector/J ({@code jdbc:mariadb:}), whichever the suite was given. */
    public String mariadbUrl() {
        return url.replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
    }

    /** A proxy in front of this database's server, for tests that cut, freeze or black-hole its connections. */
    public TcpProxy newProxy() {
        java.net.URI server = java.net.URI.create(url.substring("jdbc:".length()));
        return new TcpProxy(server.getHost(), server.getPort());
    }

    /** The URL of this database through {@code proxy}, for the same driver. */
    public String urlThrough(TcpProxy proxy) {
        java.net.URI server = java.net.URI.create(url.substring("jdbc:".length()));
        return url.replace(server.getHost() + ":" + server.getPort(), "127.0.0.1:" + proxy.port());
    }

    /** The URL for the driver named {@code mysql} or {@code mariadb}: tests run once with each. */
    public String url(String driver) {
        return switch (driver) {
            case "mysql" -> mysqlUrl();
            case "mariadb" -> mariadbUrl();
            default -> throw new IllegalArgumentException("driver must be mysql or mariadb: " + driver);
        };
    }

    /** Spring properties that point {@code spring.datasource.*} at this database. */
    public String[] springProperties() {
        return new String[] { "spring.datasource.url=" + url, "spring.datasource.username=" + user,
                "spring.datasource.password=" + password };
    }
}
