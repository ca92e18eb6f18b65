package io.github.delayqueue.it;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts {@link TestApp} contexts that stand in for instances of one application: same database, same key prefix,
 * each with its own engine and threads. Closes what it started.
 */
public final class Instances implements AutoCloseable {

    private final TestDatabase database;

    private final String keyPrefix;

    private final Journal journal;

    private final List<String> common;

    private final List<ConfigurableApplicationContext> started = new ArrayList<>();

    private final Class<?> application;

    public Instances(Journal journal, String... properties) {
        this(TestApp.class, journal, properties);
    }

    public Instances(Class<?> application, Journal journal, String... properties) {
        this.application = application;
        this.database = TestServices.newDatabase();
        this.keyPrefix = TestServices.newKeyPrefix();
        this.journal = journal;
        this.common = new ArrayList<>(Arrays.asList(database.springProperties()));
        common.add("spring.data.redis.url=" + TestServices.redisUrl());
        common.add("delay.redis.key-prefix=" + keyPrefix);
        common.add("spring.datasource.hikari.maximum-pool-size=12");
        common.add("spring.data.redis.repositories.enabled=false");
        common.addAll(Arrays.asList(properties));
    }

    /** The instances started so far, closed or not. */
    public List<ConfigurableApplicationContext> started() {
        return List.copyOf(started);
    }

    public TestDatabase database() {
        return database;
    }

    /** The properties every instance gets: database, Redis, key prefix, and the ones given to the constructor. */
    public List<String> properties() {
        return List.copyOf(common);
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    /** Starts one more instance; {@code properties} come after (and override) the common ones. */
    public ConfigurableApplicationContext start(String... properties) {
        return start(ctx -> {
        }, properties);
    }

    /** Starts one more instance, letting {@code customizer} register beans of its own (a skewed Clock, say). */
    public ConfigurableApplicationContext start(
            ApplicationContextInitializer<ConfigurableApplicationContext> customizer,
            String... properties) {
        List<String> all = new ArrayList<>(common);
        all.addAll(Arrays.asList(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
            .web(WebApplicationType.NONE)
            .properties(all.toArray(String[]::new))
            .initializers(ctx -> ctx.getBeanFactory().registerSingleton("journal", journal), customizer)
            .run();
        started.add(context);
        return context;
    }

    @Override
    public void close() {
        for (ConfigurableApplicationContext context : started) {
            try {
                context.close();
            }
            catch (RuntimeException ex) {
                // a crashed instance may fail to close cleanly; the test has its verdict already
            }
        }
    }
}
