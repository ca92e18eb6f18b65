package io.github.delayqueue.testservices;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;


/**
 * Decides where the integration tests find their services, in the order docs/architecture.md gives: the
 * {@code DELAY_TEST_*} variables; Testcontainers when Docker answers; MySQL/MariaDB and Redis on their default
 * loopback ports; otherwise one error that names every way to provide them. Pure logic over its inputs so the order
 * itself is unit-tested.
 */
public final class ServiceResolver {

    public static final String JDBC_URL = "DELAY_TEST_JDBC_URL";
    public static final String JDBC_USER = "DELAY_TEST_JDBC_USER";
    public static final String JDBC_PASSWORD = "DELAY_TEST_JDBC_PASSWORD";
    public static final String REDIS_URL = "DELAY_TEST_REDIS_URL";
    public static final String REDIS_CLUSTER_NODES = "DELAY_TEST_REDIS_CLUSTER_NODES";

    /** The servers on their default loopback ports, the last resort (the benchmark's default too). */
    public static final String LOOPBACK_JDBC_URL = "jdbc:mysql://127.0.0.1:3306/";
    public static final String LOOPBACK_REDIS_URL = "redis://127.0.0.1:6379";

    /** Answers whether something accepts TCP connections on a loopback port. */
    @FunctionalInterface
    public interface PortProbe {
        boolean isOpen(int port);
    }

    private final Map<String, String> env;
    private final BooleanSupplier dockerAvailable;
    private final Supplier<ServiceEndpoints> containers;
    private final PortProbe loopback;

    public ServiceResolver(Map<String, String> env, BooleanSupplier dockerAvailable,
            Supplier<ServiceEndpoints> containers, PortProbe loopback) {
        this.env = env;
        this.dockerAvailable = dockerAvailable;
        this.containers = containers;
        this.loopback = loopback;
    }

    public ServiceEndpoints resolve() {
        List<String> cluster = clusterNodes();
        String jdbcUrl = value(JDBC_URL);
        String redisUrl = value(REDIS_URL);
        if (jdbcUrl != null || redisUrl != null) {
            if (jdbcUrl == null || redisUrl == null) {
                throw new IllegalStateException("Set both " + JDBC_URL + " and " + REDIS_URL
                        + " (only " + (jdbcUrl != null ? JDBC_URL : REDIS_URL) + " is set). " + howToProvide());
            }
            String user = value(JDBC_USER);
            String password = value(JDBC_PASSWORD);
            return new ServiceEndpoints(ServiceEndpoints.Source.ENVIRONMENT, jdbcUrl, user != null ? user : "root",
                    password != null ? password : "", redisUrl, cluster);
        }
        if (dockerAvailable.getAsBoolean()) {
            ServiceEndpoints started = containers.get();
            return new ServiceEndpoints(started.source(), started.jdbcUrl(), started.jdbcUser(),
                    started.jdbcPassword(), started.redisUrl(), cluster);
        }
        if (loopback.isOpen(3306) && loopback.isOpen(6379)) {
            return new ServiceEndpoints(ServiceEndpoints.Source.LOOPBACK, LOOPBACK_JDBC_URL, "root", "",
                    LOOPBACK_REDIS_URL, cluster);
        }
        throw new IllegalStateException("No database and Redis for the integration tests. " + howToProvide());
    }

    private List<String> clusterNodes() {
        String nodes = value(REDIS_CLUSTER_NODES);
        if (nodes == null) {
            return List.of();
        }
        return Arrays.stream(nodes.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private @Nullable String value(String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? null : value.trim();
    }

    static String howToProvide() {
        return "Provide them in one of these ways: (1) set " + JDBC_URL + " (e.g. jdbc:mysql://127.0.0.1:3306/), "
                + JDBC_USER + ", " + JDBC_PASSWORD + " and " + REDIS_URL + " (e.g. redis://127.0.0.1:6379); "
                + "(2) run a Docker engine so Testcontainers can start mysql:8.4 and redis:7; "
                + "(3) run MySQL/MariaDB on 127.0.0.1:3306 (user root, empty password) and Redis on 127.0.0.1:6379. "
                + "Cluster tests also need " + REDIS_CLUSTER_NODES
                + " (e.g. 127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003).";
    }
}
