package io.github.delayqueue.sample.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Starts an embedded MariaDB when no database is configured and an embedded Redis when no Redis is configured, so the
 * sample runs on a machine with nothing but a JDK, and points {@code spring.datasource.*} and
 * {@code spring.data.redis.*} at them. "Configured" means the properties are set anywhere Spring Boot reads them
 * (command line, environment variables such as {@code SPRING_DATASOURCE_URL}, {@code config/application.properties});
 * whether some server happens to answer on a default port does not count. {@code sample.embedded.enabled=false}
 * turns this off, for a run whose connections come from elsewhere (Testcontainers' service connections, say); the
 * build's ahead-of-time processing ({@code spring-boot:process-aot}) starts nothing either.
 *
 * <p>Runs last among the post-processors, after the application's configuration files were read. The servers stop
 * after the application context has closed and released its connections ({@link EmbeddedServers}).
 */
public class EmbeddedServicesEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String ENABLED_PROPERTY = "sample.embedded.enabled";

    static final String DATABASE_NAME = "sample";

    private static final List<String> DATABASE_PROPERTIES = List.of("spring.datasource.url",
            "spring.datasource.jndi-name");

    private static final List<String> REDIS_PROPERTIES = List.of("spring.data.redis.url", "spring.data.redis.host",
            "spring.data.redis.port", "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.nodes",
            "spring.data.redis.masterreplica.nodes");

    private final Log log;

    public EmbeddedServicesEnvironmentPostProcessor(DeferredLogFactory logFactory) {
        this.log = logFactory.getLog(EmbeddedServicesEnvironmentPostProcessor.class);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Missing missing = Missing.in(environment);
        if (!missing.database() && !missing.redis()) {
            return;
        }
        List<AutoCloseable> started = new ArrayList<>();
        Map<String, Object> properties = new LinkedHashMap<>();
        try {
            if (missing.database()) {
                long start = System.nanoTime();
                EmbeddedMariaDb db = startDatabase(environment.getProperty(EmbeddedMariaDb.START_TIMEOUT_PROPERTY,
                        Duration.class, EmbeddedMariaDb.DEFAULT_START_TIMEOUT));
                started.add(db);
                properties.put("spring.datasource.url", db.jdbcUrl());
                properties.put("spring.datasource.username", "root");
                properties.put("spring.datasource.password", "");
                log.info("No spring.datasource.url configured: started an embedded MariaDB at " + db.jdbcUrl() + " in "
                        + seconds(start) + " (its data is deleted when the app stops)");
            }
            if (missing.redis()) {
                long start = System.nanoTime();
                EmbeddedRedis redis = EmbeddedRedis.start();
                started.add(redis);
                properties.put("spring.data.redis.url", redis.url());
                log.info("No spring.data.redis.* configured: started an embedded Redis at " + redis.url() + " in "
                        + seconds(start));
            }
        }
        catch (RuntimeException ex) {
            new EmbeddedServers(started, log).close();
            throw ex;
        }
        environment.getPropertySources().addLast(new MapPropertySource("embeddedServices", properties));
        EmbeddedServers servers = new EmbeddedServers(started, log);
        application.addInitializers(context -> servers.stopAfterClose(context.getBeanFactory()));
        // For a JVM that exits without closing the context; runs after Spring Boot's shutdown hook closed it.
        SpringApplication.getShutdownHandlers().add(servers::close);
    }

    private EmbeddedMariaDb startDatabase(Duration startTimeout) {
        return retryingATimeout(() -> EmbeddedMariaDb.start(DATABASE_NAME, startTimeout),
                ex -> log.warn("The embedded MariaDB was not ready within " + startTimeout.toSeconds()
                        + " s; trying once more"));
    }

    /**
     * A server that was not ready in time gets one more try (the start makes a fresh port and directory): the machine
     * may have been busy for a moment, a build or an IDE indexing, and a user's first start should not fail for it.
     * Any other failure, or a second timeout, is thrown.
     */
    static <T> T retryingATimeout(Supplier<T> start, Consumer<EmbeddedDatabaseStartException> beforeRetry) {
        try {
            return start.get();
        }
        catch (EmbeddedDatabaseStartException ex) {
            if (!ex.timedOut()) {
                throw ex;
            }
            beforeRetry.accept(ex);
            return start.get();
        }
    }

    private static String seconds(long startNanos) {
        return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - startNanos) / 1e9);
    }

    /**
     * Which services the application has no connection for.
     *
     * @param database whether no database is configured
     * @param redis whether no Redis is configured
     */
    record Missing(boolean database, boolean redis) {

        static Missing in(Environment environment) {
            if (!environment.getProperty(ENABLED_PROPERTY, Boolean.class, true)
                    || environment.getProperty(AbstractAotProcessor.AOT_PROCESSING, Boolean.class, false)) {
                return new Missing(false, false); // switched off, or a build's AOT run, which connects to nothing
            }
            return new Missing(noneSet(environment, DATABASE_PROPERTIES), noneSet(environment, REDIS_PROPERTIES));
        }

        private static boolean noneSet(Environment environment, List<String> names) {
            return names.stream().noneMatch(name -> StringUtils.hasText(environment.getProperty(name)));
        }
    }
}
