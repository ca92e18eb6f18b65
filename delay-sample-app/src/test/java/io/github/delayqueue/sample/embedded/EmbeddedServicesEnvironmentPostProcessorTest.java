package io.github.delayqueue.sample.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.sample.embedded.EmbeddedServicesEnvironmentPostProcessor.Missing;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What counts as "configured": the connection properties, wherever they come from; nothing else. */
class EmbeddedServicesEnvironmentPostProcessorTest {

    @Test
    void withNothingConfiguredBothAreMissing() {
        assertThat(Missing.in(new MockEnvironment())).isEqualTo(new Missing(true, true));
    }

    @Test
    void aDatasourceUrlMeansNoEmbeddedDatabase() {
        MockEnvironment environment = new MockEnvironment().withProperty("spring.datasource.url",
                "jdbc:mysql://db.example:3306/shop");
        assertThat(Missing.in(environment)).isEqualTo(new Missing(false, true));
    }

    @Test
    void anyRedisConnectionPropertyMeansNoEmbeddedRedis() {
        for (String property : new String[] { "spring.data.redis.url", "spring.data.redis.host",
                "spring.data.redis.port", "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.nodes" }) {
            MockEnvironment environment = new MockEnvironment().withProperty(property, "x");
            assertThat(Missing.in(environment)).as(property).isEqualTo(new Missing(true, false));
        }
    }

    @Test
    void environmentVariablesCountAsConfiguration() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources()
            .addFirst(new SystemEnvironmentPropertySource("env", Map.of("SPRING_DATASOURCE_URL",
                    "jdbc:mysql://db.example/shop", "SPRING_DATA_REDIS_HOST", "redis.example")));
        assertThat(Missing.in(environment)).isEqualTo(new Missing(false, false));
    }

    @Test
    void anEmptyValueIsNotAConfiguration() {
        MockEnvironment environment = new MockEnvironment().withProperty("spring.datasource.url", "")
            .withProperty("spring.data.redis.url", " ");
        assertThat(Missing.in(environment)).isEqualTo(new Missing(true, true));
    }

    @Test
    void theBuildsAotProcessingStartsNothing() {
        MockEnvironment environment = new MockEnvironment().withProperty("spring.aot.processing", "true");
        assertThat(Missing.in(environment)).isEqualTo(new Missing(false, false));
    }

    @Test
    void turnedOffNothingIsMissing() {
        MockEnvironment environment = new MockEnvironment().withProperty("sample.embedded.enabled", "false");
        assertThat(Missing.in(environment)).isEqualTo(new Missing(false, false));
    }

    @Test
    void withBothConfiguredNothingStartsAndNothingIsAdded() {
        MockEnvironment environment = new MockEnvironment()
            .withProperty("spring.datasource.url", "jdbc:mysql://db.example/shop")
            .withProperty("spring.data.redis.url", "redis://redis.example:6379");
        int sources = environment.getPropertySources().size();
        SpringApplication application = new SpringApplication();
        int initializers = application.getInitializers().size();

        new EmbeddedServicesEnvironmentPostProcessor(destination -> destination.get())
            .postProcessEnvironment(environment, application);

        assertThat(environment.getPropertySources().size()).isEqualTo(sources);
        assertThat(application.getInitializers()).hasSize(initializers);
    }

    @Test
    void aStartThatTimesOutIsTriedOnceMore() {
        List<String> calls = new ArrayList<>();
        List<EmbeddedDatabaseStartException> retried = new ArrayList<>();

        String started = EmbeddedServicesEnvironmentPostProcessor.retryingATimeout(() -> {
            calls.add("start");
            if (calls.size() == 1) {
                throw timeout();
            }
            return "server";
        }, retried::add);

        assertThat(started).isEqualTo("server");
        assertThat(calls).hasSize(2);
        assertThat(retried).hasSize(1);
    }

    @Test
    void aSecondTimeoutOrAnotherFailureIsThrown() {
        EmbeddedDatabaseStartException second = timeout();
        List<EmbeddedDatabaseStartException> thrown = new ArrayList<>(List.of(timeout(), second));
        assertThatThrownBy(() -> EmbeddedServicesEnvironmentPostProcessor.retryingATimeout(() -> {
            throw thrown.remove(0);
        }, ex -> { })).isSameAs(second);

        EmbeddedDatabaseStartException broken = new EmbeddedDatabaseStartException("it failed", false,
                Duration.ofMinutes(3), new IllegalStateException("libcrypt.so.1"));
        List<String> calls = new ArrayList<>();
        assertThatThrownBy(() -> EmbeddedServicesEnvironmentPostProcessor.retryingATimeout(() -> {
            calls.add("start");
            throw broken;
        }, ex -> { })).isSameAs(broken);
        assertThat(calls).as("no second try after a failure that is not a timeout").hasSize(1);
    }

    private static EmbeddedDatabaseStartException timeout() {
        return new EmbeddedDatabaseStartException("not ready", true, Duration.ofMinutes(3),
                new IllegalStateException("Magic string not seen"));
    }
}
