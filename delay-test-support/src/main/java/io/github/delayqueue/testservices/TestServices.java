package io.github.delayqueue.testservices;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Assumptions;

/**
 * The one entry point integration tests use to reach real services. It resolves them once per JVM
 * ({@link ServiceResolver}), creates a fresh database per call of {@link #newDatabase()} and a fresh Redis key prefix
 * per call of {@link #newKeyPrefix()}, and at JVM exit drops those databases and deletes those keys, and nothing else.
 */
public final class TestServices {

    /** When {@code true} (as in {@code .ci/run}), a test needing a Redis Cluster fails instead of being skipped. */
    public static final String REQUIRE_CLUSTER = "DELAY_TEST_REQUIRE_CLUSTER";

    /**
     * When {@code true} (as in {@code .ci/run}), a test needing the database's named time zones fails instead of
     * being skipped.
     */
    public static final String REQUIRE_TIME_ZONES = "DELAY_TEST_REQUIRE_TIME_ZONES";

    private static volatile ServiceEndpoints endpoints;

    private static final List<String> databases = new CopyOnWriteArrayList<>();

    private static final List<String> keyPrefixes = new CopyOnWriteArrayList<>();

    private static final Set<String> skipReasons = ConcurrentHashMap.newKeySet();

    private TestServices() {
    }

    public static synchronized ServiceEndpoints endpoints() {
        if (endpoints == null) {
            endpoints = new ServiceResolver(System.getenv(), ContainerServices::dockerAvailable,
                    ContainerServices::start, TestServices::loopbackOpen).resolve();
            System.out.println("[delay tests] services from " + endpoints.source() + ": " + endpoints.jdbcUrl()
                    + " and " + endpoints.redisUrl()
                    + (endpoints.redisClusterNodes().isEmpty() ? "" : ", cluster " + endpoints.redisClusterNodes()));
            Runtime.getRuntime().addShutdownHook(new Thread(TestServices::cleanUp, "delay-test-cleanup"));
        }
        return endpoints;
    }

    /** Creates a database of its own for the caller; it is dropped when the JVM exits. */
    public static TestDatabase newDatabase() {
        ServiceEndpoints services = endpoints();
        String name = "delay_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        databases.add(name);
        return new TestDatabase(name, JdbcUrls.withDatabase(services.jdbcUrl(), name), services.jdbcUser(),
                services.jdbcPassword());
    }

    /** A Redis URL of a single node. */
    public static String redisUrl() {
        return endpoints().redisUrl();
    }

    /** A key prefix no other test uses; keys under it are deleted when the JVM exits. */
    public static String newKeyPrefix() {
        String prefix = "delay-it-" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
        keyPrefixes.add(prefix);
        return prefix;
    }

    /**
     * The Redis Cluster seed nodes. Without {@link ServiceResolver#REDIS_CLUSTER_NODES} the calling test is skipped
     * with the reason, or fails when {@link #REQUIRE_CLUSTER} is set.
     */
    public static List<String> redisClusterNodes() {
        List<String> nodes = endpoints().redisClusterNodes();
        if (nodes.isEmpty()) {
            skipUnlessRequired(REQUIRE_CLUSTER, "no Redis Cluster: set " + ServiceResolver.REDIS_CLUSTER_NODES
                    + " to run the cluster tests (.ci/run starts one)");
        }
        return nodes;
    }

    /**
     * For a test that needs more than {@code mvn verify} asks for: skips the calling test with {@code reason}, which
     * says how to run it, or fails it when the environment variable {@code require} is {@code true} ({@code .ci/run}
     * provides what such tests need and sets it, so that none of them is skipped there unnoticed).
     */
    public static void skipUnlessRequired(String require, String reason) {
        if (Boolean.parseBoolean(System.getenv(require))) {
            throw new IllegalStateException(reason + "; " + require + " is set, so this is a failure");
        }
        if (skipReasons.add(reason)) { // Maven's summary counts skipped tests but does not say why: this does, once
            System.out.println("[delay tests] skipped: " + reason);
        }
        Assumptions.abort(reason);
    }

    /** Runs one statement on the server with the test user, outside any test database. */
    public static void execute(String sql) {
        ServiceEndpoints services = endpoints();
        try (Connection connection = DriverManager.getConnection(services.jdbcUrl(), services.jdbcUser(),
                services.jdbcPassword()); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Test database statement failed: " + sql, ex);
        }
    }

    private static boolean loopbackOpen(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    private static void cleanUp() {
        for (String name : new ArrayList<>(databases)) {
            try {
                execute("DROP DATABASE IF EXISTS " + name);
            }
            catch (RuntimeException ex) {
                System.err.println("[delay tests] could not drop " + name + ": " + ex.getMessage());
            }
        }
        RedisKeys.deleteAll(endpoints, keyPrefixes);
    }
}
