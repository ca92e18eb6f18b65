package io.github.delayqueue.autoconfigure;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.delayqueue.api.EnableDelayQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with {@code @EnableDelayQueue} and the starter but no JDBC driver (the starter brings none) is told
 * at startup which driver to add; an application on some other driver keeps Spring Boot's own analysis.
 */
class MissingJdbcDriverTests {

    private static final List<String> DRIVER_JARS = List.of("mysql-connector-j", "mariadb-java-client");

    private static final Throwable HIKARI_FAILURE = new RuntimeException(
            "Failed to load driver class com.mysql.cj.jdbc.Driver",
            new ClassNotFoundException("com.mysql.cj.jdbc.Driver"));

    /**
     * A worker-only application ({@link WorkerOnlyApp}) in a JVM of its own, on this test's class path without the
     * two drivers: HikariCP also loads the driver through its own class loader, so no filtering class loader in this
     * JVM could hide it. Nothing is reachable at the URL, and nothing needs to be: the driver is missing first.
     */
    @ParameterizedTest
    @ValueSource(strings = { "jdbc:mysql://127.0.0.1:1/none", "jdbc:mariadb://127.0.0.1:1/none" })
    void startupWithoutADriverSaysWhichToAdd(String url, @TempDir Path dir) throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> DRIVER_JARS.stream().noneMatch(entry::contains))
            .collect(Collectors.joining(File.pathSeparator));
        assertThat(classPath).as("the drivers' jars left out").isNotEqualTo(System.getProperty("java.class.path"));
        Path log = dir.resolve("app.log");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                classPath, WorkerOnlyApp.class.getName(), "--delay.mode=jdbc", "--spring.datasource.url=" + url)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        try {
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the application gives up").isTrue();
            String output = Files.readString(log);
            assertThat(output).as(output)
                .contains("APPLICATION FAILED TO START")
                .contains("The delay queue's DataSource needs a JDBC driver for MySQL or MariaDB")
                .contains("com.mysql:mysql-connector-j")
                .contains("org.mariadb.jdbc:mariadb-java-client");
        }
        finally {
            process.destroyForcibly();
        }
    }

    @EnableDelayQueue
    static class Enabled {
    }

    static class NotEnabled {
    }

    private static MissingJdbcDriverFailureAnalyzer analyzer(Class<?> application, boolean driversVisible) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        if (!driversVisible) {
            beanFactory.setBeanClassLoader(new FilteredClassLoader("com.mysql", "org.mariadb"));
        }
        beanFactory.registerBeanDefinition("application", new RootBeanDefinition(application));
        return new MissingJdbcDriverFailureAnalyzer(beanFactory);
    }

    @Test
    void namesTheDriverThatWasMissingAndBothArtifacts() {
        FailureAnalysis analysis = analyzer(Enabled.class, false).analyze(HIKARI_FAILURE);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).contains("com.mysql.cj.jdbc.Driver could not be loaded");
        assertThat(analysis.getAction()).contains("com.mysql:mysql-connector-j", "org.mariadb.jdbc:mariadb-java-client",
                "spring.datasource.url");
    }

    @Test
    void leavesOtherApplicationsToSpringBoot() {
        assertThat(analyzer(NotEnabled.class, false).analyze(HIKARI_FAILURE)).as("queue not enabled").isNull();
        assertThat(analyzer(Enabled.class, true).analyze(HIKARI_FAILURE)).as("a driver is there").isNull();
        assertThat(analyzer(Enabled.class, false).analyze(new IllegalStateException("Connection refused")))
            .as("a failure that names no driver")
            .isNull();
    }
}
