package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.function.Supplier;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.util.ClassUtils;

/**
 * Where the engine's own statements (claims, results, lease renewals, recovery, migration, the purge) get their
 * connections: from the application's pool, except right after a statement lost its connection. HikariCP, Boot's
 * default pool, reconnects on one background thread that waits up to 5 s between attempts, so after an outage of a few
 * seconds the pool hands out its first connection up to 5 s after the database answers again, and every task that fell
 * due meanwhile would wait for it. So from a lost connection until {@link #CATCH_UP_MILLIS} after the database answered
 * again, the engine opens its connections itself, with the pool's settings (URL, user, driver properties, catalog,
 * schema, init SQL); each try fails at once while the database is away and succeeds as soon as it is back. The
 * application's own statements, and {@code schedule()}, which joins the application's transactions, keep the pool.
 * A pool that connects when asked (anything but HikariCP here) is used as it is.
 */
final class EngineConnections extends AbstractDataSource {

    /** How long after the database answers again the engine keeps its own connections: the pool's back-off and more. */
    static final long CATCH_UP_MILLIS = 10_000;

    private static final Logger log = LoggerFactory.getLogger(EngineConnections.class);

    /** How long a connection of the engine's own waits for the server, unless the URL or the properties say. */
    private static final String CONNECT_TIMEOUT_MILLIS = "3000";

    private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
            EngineConnections.class.getClassLoader());

    private final DataSource pool;

    private final @Nullable DataSource direct;

    /** Whether the engine opens its own connections: from a lost connection until {@link #bypassUntil}. */
    private volatile boolean bypass;

    /** When the bypass ends, {@link System#nanoTime}; set by the first connection of the engine's own that worked. */
    private volatile long bypassUntil = Long.MAX_VALUE;

    EngineConnections(DataSource pool) {
        this(pool, HIKARI_PRESENT ? HikariSettings.directSource(pool) : null);
    }

    EngineConnections(DataSource pool, @Nullable DataSource direct) {
        this.pool = pool;
        this.direct = direct;
    }

    @Override
    public Connection getConnection() throws SQLException {
        DataSource own = direct;
        if (bypass && own != null) {
            if (System.nanoTime() - bypassUntil < 0) {
                Connection connection = own.getConnection();
                if (bypassUntil == Long.MAX_VALUE) {
                    bypassUntil = System.nanoTime() + CATCH_UP_MILLIS * 1_000_000;
                    log.info("The task database answers again; the engine uses connections of its own for {} s, "
                            + "while the connection pool reconnects", CATCH_UP_MILLIS / 1000);
                }
                return connection;
            }
            bypass = false;
        }
        return pool.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLException("The engine's connections use the pool's credentials");
    }

    /** Runs an engine statement; a lost connection makes the engine open its own until the pool has caught up. */
    <T> T call(Supplier<T> statement) {
        try {
            return statement.get();
        }
        catch (DataAccessException ex) {
            if (lostConnection(ex)) {
                connectionLost();
            }
            throw ex;
        }
    }

    void connectionLost() {
        if (direct != null && !bypass) {
            bypassUntil = Long.MAX_VALUE;
            bypass = true;
        }
    }

    /** A failure of the connection, not of the statement: the database is away, or the connection was cut. */
    static boolean lostConnection(DataAccessException ex) {
        return ex instanceof DataAccessResourceFailureException || ex instanceof TransientDataAccessResourceException
                || ex instanceof RecoverableDataAccessException;
    }

    /** HikariCP's settings, in a class of its own so the pool's classes are loaded only when they are there. */
    private static final class HikariSettings {

        static @Nullable DataSource directSource(DataSource pool) {
            try {
                if (!pool.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)) {
                    return null;
                }
                com.zaxxer.hikari.HikariDataSource hikari = pool.unwrap(com.zaxxer.hikari.HikariDataSource.class);
                DataSource configured = hikari.getDataSource();
                DataSource driver;
                if (configured != null) {
                    driver = configured;
                }
                else if (hikari.getJdbcUrl() != null && hikari.getCredentialsProvider() == null) {
                    Properties properties = new Properties();
                    properties.putAll(hikari.getDataSourceProperties());
                    if (!hikari.getJdbcUrl().contains("connectTimeout=")) {
                        properties.putIfAbsent("connectTimeout", CONNECT_TIMEOUT_MILLIS);
                    }
                    driver = new com.zaxxer.hikari.util.DriverDataSource(hikari.getJdbcUrl(),
                            hikari.getDriverClassName(), properties, hikari.getUsername(), hikari.getPassword());
                }
                else {
                    return null; // a data source class name or a credentials provider: the pool alone
                }
                return new Prepared(driver, hikari.getCatalog(), hikari.getSchema(), hikari.getConnectionInitSql());
            }
            catch (SQLException | RuntimeException ex) {
                log.debug("The task database's pool cannot be bypassed after an outage: {}", ex.toString());
                return null;
            }
        }
    }

    /** Connections set up as the pool sets up its own. */
    private static final class Prepared extends AbstractDataSource {

        private final DataSource driver;

        private final @Nullable String catalog;

        private final @Nullable String schema;

        private final @Nullable String initSql;

        Prepared(DataSource driver, @Nullable String catalog, @Nullable String schema, @Nullable String initSql) {
            this.driver = driver;
            this.catalog = catalog;
            this.schema = schema;
            this.initSql = initSql;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = driver.getConnection();
            try {
                if (catalog != null) {
                    connection.setCatalog(catalog);
                }
                if (schema != null) {
                    connection.setSchema(schema);
                }
                if (initSql != null) {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute(initSql);
                    }
                }
                return connection;
            }
            catch (SQLException ex) {
                connection.close();
                throw ex;
            }
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLException("The engine's connections use the pool's credentials");
        }
    }
}
