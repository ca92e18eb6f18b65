package io.github.delayqueue.sample;

import io.github.delayqueue.api.EnableDelayQueue;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** An order service that cancels unpaid orders with the delay queue. */
@SpringBootApplication
@EnableDelayQueue
public class OrderServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderServiceApplication.class, args);
    }
}
