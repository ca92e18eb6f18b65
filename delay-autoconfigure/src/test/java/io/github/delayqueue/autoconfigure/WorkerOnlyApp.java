package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A worker-only application, as a user writes one: no web server, and a {@code main} that returns as soon as the
 * context runs (after scheduling one task for later). Started in a JVM of its own by {@link KeepAliveIT}; arguments
 * are Spring properties ({@code --name=value}). Prints {@code MAIN RETURNED} and {@code RAN <payload>}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableDelayQueue
public class WorkerOnlyApp {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(WorkerOnlyApp.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        ConfigurableApplicationContext context = application.run(args);
        context.getBean(DelayQueue.class).schedule("keep-alive.later", "later", Duration.ofSeconds(3));
        System.out.println("MAIN RETURNED");
    }

    @Bean
    Later later() {
        return new Later();
    }

    static class Later {

        @DelayedHandler(type = "keep-alive.later")
        void run(String payload) {
            System.out.println("RAN " + payload);
        }
    }
}
