package io.github.delayqueue.testservices;

import java.util.List;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.mysql.MySQLContainer;
import org.testcontainers.utility.DockerImageName;

/** Starts {@code mysql:8.4} and {@code redis:7} with Testcontainers; used only when a Docker engine answers. */
final class ContainerServices {

    private ContainerServices() {
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        }
        catch (RuntimeException | LinkageError ex) {
            return false;
        }
    }

    @SuppressWarnings("resource") // Testcontainers' reaper stops both when the JVM exits
    static ServiceEndpoints start() {
        MySQLContainer mysql = new MySQLContainer(DockerImageName.parse("mysql:8.4")).withUsername("root")
            .withPassword("test")
            .withDatabaseName("test");
        GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse("redis:7")).withExposedPorts(6379);
        mysql.start();
        redis.start();
        String redisUrl = "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379);
        return new ServiceEndpoints(ServiceEndpoints.Source.TESTCONTAINERS, mysql.getJdbcUrl(), "root", "test",
                redisUrl, List.of());
    }
}
