package io.github.delayqueue.testservices;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class ServiceResolverTest {

    private final AtomicBoolean containersStarted = new AtomicBoolean();

    private final ServiceEndpoints containerEndpoints = new ServiceEndpoints(ServiceEndpoints.Source.TESTCONTAINERS,
            "jdbc:mysql://localhost:32768/test", "root", "test", "redis://localhost:32769", List.of());

    private ServiceResolver resolver(Map<String, String> env, boolean docker, boolean loopback) {
        return new ServiceResolver(env, () -> docker, () -> {
            containersStarted.set(true);
            return containerEndpoints;
        }, port -> loopback);
    }

    @Test
    void environmentVariablesWinOverEverythingElse() {
        ServiceEndpoints endpoints = resolver(Map.of(ServiceResolver.JDBC_URL, "jdbc:mysql://db:3306/",
                ServiceResolver.JDBC_USER, "ci", ServiceResolver.JDBC_PASSWORD, "secret", ServiceResolver.REDIS_URL,
                "redis://cache:6379", ServiceResolver.REDIS_CLUSTER_NODES, "n1:7001, n2:7002"), true, true).resolve();
        assertThat(endpoints.source()).isEqualTo(ServiceEndpoints.Source.ENVIRONMENT);
        assertThat(endpoints.jdbcUrl()).isEqualTo("jdbc:mysql://db:3306/");
        assertThat(endpoints.jdbcUser()).isEqualTo("ci");
        assertThat(endpoints.jdbcPassword()).isEqualTo("secret");
        assertThat(endpoints.redisUrl()).isEqualTo("redis://cache:6379");
        assertThat(endpoints.redisClusterNodes()).containsExactly("n1:7001", "n2:7002");
        assertThat(containersStarted).isFalse();
    }

    @Test
    void oneVariableWithoutTheOtherIsAnError() {
        assertThatIllegalStateException()
            .isThrownBy(() -> resolver(Map.of(ServiceResolver.JDBC_URL, "jdbc:mysql://db/"), true, true).resolve())
            .withMessageContaining(ServiceResolver.REDIS_URL);
    }

    @Test
    void testcontainersWhenDockerAnswersAndNoVariables() {
        ServiceEndpoints endpoints = resolver(Map.of(ServiceResolver.REDIS_CLUSTER_NODES, "n1:7001"), true, true)
            .resolve();
        assertThat(endpoints.source()).isEqualTo(ServiceEndpoints.Source.TESTCONTAINERS);
        assertThat(endpoints.jdbcUrl()).isEqualTo(containerEndpoints.jdbcUrl());
        assertThat(endpoints.redisClusterNodes()).containsExactly("n1:7001");
        assertThat(containersStarted).isTrue();
    }

    @Test
    void loopbackWhenNoDocker() {
        ServiceEndpoints endpoints = resolver(Map.of(), false, true).resolve();
        assertThat(endpoints.source()).isEqualTo(ServiceEndpoints.Source.LOOPBACK);
        assertThat(endpoints.jdbcUrl()).isEqualTo("jdbc:mysql://127.0.0.1:3306/");
        assertThat(endpoints.jdbcUser()).isEqualTo("root");
        assertThat(endpoints.jdbcPassword()).isEmpty();
        assertThat(endpoints.redisUrl()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(containersStarted).isFalse();
    }

    @Test
    void nothingAvailableFailsWithEveryWayNamed() {
        assertThatIllegalStateException().isThrownBy(() -> resolver(Map.of(), false, false).resolve())
            .withMessageContaining(ServiceResolver.JDBC_URL)
            .withMessageContaining("Docker")
            .withMessageContaining("127.0.0.1:3306");
    }

    @Test
    void jdbcUrlKeepsHostAndParametersWhenTheDatabaseChanges() {
        assertThat(JdbcUrls.withDatabase("jdbc:mysql://127.0.0.1:3306/", "x"))
            .isEqualTo("jdbc:mysql://127.0.0.1:3306/x");
        assertThat(JdbcUrls.withDatabase("jdbc:mysql://h:1/test?useSSL=false&a=b", "x"))
            .isEqualTo("jdbc:mysql://h:1/x?useSSL=false&a=b");
        assertThat(JdbcUrls.withDatabase("jdbc:mysql://h:1", "x")).isEqualTo("jdbc:mysql://h:1/x");
    }
}
