package io.github.delayqueue.sample;

import java.time.Clock;

import io.github.delayqueue.api.EnableDelayQueue;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * An order service that cancels unpaid orders with the delay queue. Without a configured database or Redis it starts
 * embedded ones (see {@code io.github.delayqueue.sample.embedded}), so it runs on a machine with only a JDK.
 */
@SpringBootApplication
@EnableDelayQueue
@ConfigurationPropertiesScan
public class OrderServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderServiceApplication.class, args);
    }

    /** One clock for the orders and the queue, so an order's {@code cancelAt} is exactly its task's due time. */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
