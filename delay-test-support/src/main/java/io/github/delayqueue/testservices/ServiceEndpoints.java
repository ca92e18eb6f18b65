package io.github.delayqueue.testservices;

import java.util.List;

/**
 * Where the integration tests find a MySQL-protocol database and a Redis: a server-level JDBC URL with credentials,
 * a Redis URL, the Redis Cluster seed nodes when there is a cluster, and which of the resolution steps found them.
 *
 * @param source how the services were found, for the log line every test run prints
 * @param jdbcUrl a JDBC URL of the server; tests create their own database on it
 * @param jdbcUser user allowed to create and drop databases
 * @param jdbcPassword that user's password, empty for none
 * @param redisUrl a {@code redis://host:port} URL of a single Redis node
 * @param redisClusterNodes {@code host:port} seeds of a Redis Cluster, empty when none was given
 */
public record ServiceEndpoints(Source source, String jdbcUrl, String jdbcUser, String jdbcPassword, String redisUrl,
        List<String> redisClusterNodes) {

    /** The resolution step that produced the endpoints, in the order they are tried. */
    public enum Source {
        ENVIRONMENT, TESTCONTAINERS, LOOPBACK
    }
}
