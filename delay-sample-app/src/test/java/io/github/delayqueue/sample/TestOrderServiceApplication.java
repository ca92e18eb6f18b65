package io.github.delayqueue.sample;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.mysql.MySQLContainer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * The order service on MySQL and Redis in Docker containers, for a developer with Docker:
 * {@code mvn -pl delay-sample-app spring-boot:test-run}. The containers are connected through service connections,
 * not properties, so the "containers" profile turns the embedded servers off.
 */
public class TestOrderServiceApplication {

    public static void main(String[] args) {
        SpringApplication.from(OrderServiceApplication::main)
            .with(Containers.class)
            .withAdditionalProfiles("containers")
            .run(args);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Containers {

        @Bean
        @ServiceConnection
        MySQLContainer mysql() {
            return new MySQLContainer("mysql:8.4");
        }

        @Bean
        @ServiceConnection(name = "redis")
        GenericContainer<?> redis() {
            return new GenericContainer<>("redis:7").withExposedPorts(6379);
        }
    }
}
