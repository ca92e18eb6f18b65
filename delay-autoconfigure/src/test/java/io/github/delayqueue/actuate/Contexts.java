package io.github.delayqueue.actuate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.delayqueue.testservices.TestServices;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts {@link ObservabilityApp} on the test Redis with a key prefix of its own and the given database. */
final class Contexts {

    private Contexts() {
    }

    static ConfigurableApplicationContext start(WebApplicationType web, String[] database, String... properties) {
        List<String> all = new ArrayList<>(Arrays.asList(database));
        all.add("spring.data.redis.url=" + TestServices.redisUrl());
        all.add("delay.redis.key-prefix=" + TestServices.newKeyPrefix());
        all.add("spring.datasource.hikari.maximum-pool-size=6");
        all.add("server.port=0");
        all.addAll(Arrays.asList(properties));
        return new SpringApplicationBuilder(ObservabilityApp.class).web(web)
            .properties(all.toArray(String[]::new))
            .run();
    }
}
