package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import io.github.delayqueue.testservices.JdbcUrls;
import io.github.delayqueue.testservices.ServiceResolver;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The MySQL/MariaDB server and Redis the benchmark runs against, found the way the integration tests find them:
 * {@code spring.*} options, else the {@code DELAY_TEST_*} variables, else the loopback defaults. Creates a database
 * and a key prefix per run and removes exactly those.
 */
final class Servers {

    final String jdbcUrl;

    final String user;

    final String password;

    final String redisUrl;

    /** {@code host:port} seed nodes of a Redis Cluster, for cluster runs; empty when none was named. */
    final List<String> redisClusterNodes;

    final String source;

    private Servers(String jdbcUrl, String user, String password, String redisUrl, List<String> redisClusterNodes,
            String source) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.redisUrl = redisUrl;
        this.redisClusterNodes = redisClusterNodes;
        this.source = source;
    }

    static Servers resolve(Map<String, String> properties, Map<String, String> env) {
        return resolve(properties, null, env);
    }

    /** {@code clusterNodes}: the {@code --redis-cluster-nodes} option, else DELAY_TEST_REDIS_CLUSTER_NODES. */
    static Servers resolve(Map<String, String> properties, String clusterNodes, Map<String, String> env) {
        String url = properties.get("spring.datasource.url");
        String user = properties.get("spring.datasource.username");
        String password = properties.get("spring.datasource.password");
        String redis = properties.get("spring.data.redis.url");
        String source = "options";
        if (url == null) {
            url = blankToNull(env.get(ServiceResolver.JDBC_URL));
            source = url == null ? "loopback defaults" : "DELAY_TEST_* variables";
        }
        if (user == null) {
            user = blankToNull(env.get(ServiceResolver.JDBC_USER));
        }
        if (password == null) {
            password = env.get(ServiceResolver.JDBC_PASSWORD);
        }
        if (redis == null) {
            redis = blankToNull(env.get(ServiceResolver.REDIS_URL));
        }
        String nodes = blankToNull(clusterNodes);
        if (nodes == null) {
            nodes = blankToNull(env.get(ServiceResolver.REDIS_CLUSTER_NODES));
        }
        List<String> clusterList = new ArrayList<>();
        if (nodes != null) {
            for (String node : nodes.split(",")) {
                if (!node.isBlank()) {
                    clusterList.add(node.trim());
                }
            }
        }
        return new Servers(url != null ? url : ServiceResolver.LOOPBACK_JDBC_URL, user != null ? user : "root",
                password != null ? password : "", redis != null ? redis : ServiceResolver.LOOPBACK_REDIS_URL,
                List.copyOf(clusterList), source);
    }

    /** The single Redis, or the cluster for a cluster run. */
    RedisTarget redis(boolean cluster) {
        if (cluster && redisClusterNodes.isEmpty()) {
            throw new IllegalStateException(
                    "A cluster run needs --redis-cluster-nodes or DELAY_TEST_REDIS_CLUSTER_NODES");
        }
        return cluster ? RedisTarget.cluster(redisClusterNodes) : RedisTarget.single(redisUrl);
    }

    /** Whether the database server runs on this machine, so its process can be looked at. */
    boolean databaseIsLocal() {
        String host = host(jdbcUrl);
        return host.equals("127.0.0.1") || host.equals("localhost") || host.equals("::1") || host.equals("[::1]");
    }

    static String host(String url) {
        int hostStart = url.indexOf("//");
        if (hostStart < 0) {
            return "";
        }
        String rest = url.substring(hostStart + 2);
        int end = rest.length();
        for (char stop : new char[] { '/', '?', ',' }) {
            int at = rest.indexOf(stop);
            if (at >= 0) {
                end = Math.min(end, at);
            }
        }
        String hostPort = rest.substring(0, end);
        if (hostPort.startsWith("[")) {
            return hostPort.substring(0, hostPort.indexOf(']') + 1);
        }
        int colon = hostPort.lastIndexOf(':');
        return (colon < 0 ? hostPort : hostPort.substring(0, colon)).toLowerCase(Locale.ROOT);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(urlFor(database), user, password);
    }

    /** The server URL with {@code database} selected, host, port and parameters kept. */
    String urlFor(String database) {
        return JdbcUrls.withDatabase(jdbcUrl, database);
    }

    static String newName(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
    }

    void createDatabase(String name) throws SQLException {
        execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
    }

    void dropDatabase(String name) {
        try {
            execute("DROP DATABASE IF EXISTS " + name);
        }
        catch (SQLException ex) {
            System.err.println("[bench] could not drop database " + name + ": " + ex.getMessage());
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Deletes every key under {@code prefix + ":"} (the queue's keys and the ceiling's), and nothing else. */
    void deleteKeys(String prefix, boolean cluster) {
        try (RedisTarget redis = redis(cluster)) {
            redis.deleteKeys(prefix + ":*");
        }
        catch (RuntimeException ex) {
            System.err.println("[bench] could not delete Redis keys under " + prefix + ": " + ex.getMessage());
        }
    }

    /** Server facts worth printing with the numbers: versions and the durability settings that cost fsyncs. */
    Map<String, String> describe() {
        Map<String, String> facts = new LinkedHashMap<>();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("SELECT VERSION()")) {
                rs.next();
                facts.put("db_version", rs.getString(1));
            }
            try (ResultSet rs = statement.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name IN "
                    + "('innodb_flush_log_at_trx_commit', 'sync_binlog', 'log_bin', 'innodb_buffer_pool_size', "
                    + "'innodb_autoinc_lock_mode', 'innodb_flush_method', 'transaction_isolation', 'tx_isolation')")) {
                while (rs.next()) {
                    facts.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        catch (SQLException ex) {
            facts.put("db_error", ex.getMessage());
        }
        RedisClient client = RedisClient.create(redisUrl);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            String info = connection.sync().info("server");
            facts.put("redis_version", infoField(info, "redis_version"));
            facts.put("redis_appendonly", String.join(" ", connection.sync().configGet("appendonly").values()));
            facts.put("redis_appendfsync", String.join(" ", connection.sync().configGet("appendfsync").values()));
        }
        catch (RuntimeException ex) {
            facts.put("redis_error", ex.getMessage());
        }
        finally {
            client.shutdown();
        }
        return facts;
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "?";
    }

    @Override
    public String toString() {
        return jdbcUrl + " (user " + user + ") and " + redisUrl + ", from " + source
                + (redisClusterNodes.isEmpty() ? "" : "; Redis Cluster " + String.join(",", redisClusterNodes));
    }
}
