package io.github.delayqueue.test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static io.github.delayqueue.test.DelayQueueAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Boot side of the test kit, on the in-memory store (no database, no Redis): {@code delay.test.enabled}
 * alone switches an application's queue to test mode, its JDK clock bean becomes the tester's, hybrid mode gets an
 * index in memory, and without the property nothing of it exists.
 */
class DelayQueueTesterAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayQueueTesterAutoConfiguration.class,
                DelayQueueAutoConfiguration.class))
        .withUserConfiguration(App.class)
        .withPropertyValues("delay.jdbc.initialize-schema=never");

    @Test
    void thePropertySwitchesTheApplicationsQueueToTestModeOnTheInMemoryStore() {
        runner.withPropertyValues("delay.test.enabled=true", "delay.test.store=in-memory").run(context -> {
            DelayQueueTester tester = context.getBean(DelayQueueTester.class);
            assertThat(context.getBean(Clock.class)).as("the application's clock is the tester's")
                .isSameAs(tester.clock());
            assertThat(context.getBean(TimeIndex.class)).isInstanceOf(InMemoryTimeIndex.class);
            assertThat(context.getBean(DelayQueueRuntime.class).mode()).isEqualTo(DelayQueueRuntime.Mode.HYBRID);
            assertThat(context.getBean(DelayQueueRuntime.class).status().work()).as("no loop or job of its own")
                .isEmpty();
            DelayQueue queue = context.getBean(DelayQueue.class);
            assertThat(tester.queue()).isSameAs(queue);

            queue.schedule(TaskRequest.of("reminder", "call Ada").key("ada").delay(Duration.ofMinutes(5)).build());

            assertThat(tester.pending()).hasTask("reminder", "ada").dueIn(Duration.ofMinutes(5))
                .hasStatus(TaskStatus.QUEUED);
            assertThat(tester.advance(Duration.ofMinutes(5))).ranOnce("reminder", "ada").succeeded();
            assertThat(context.getBean(Reminders.class).sent).containsExactly("call Ada");
        });
    }

    @Test
    void withoutThePropertyThereIsNoTestMode() {
        runner.withPropertyValues("delay.mode=jdbc", "delay.worker.enabled=false", "delay.clock.source=local")
            .run(context -> {
                assertThat(context).hasSingleBean(DelayQueueRuntime.class).doesNotHaveBean(DelayQueueTester.class);
                assertThat(context.getBean(Clock.class)).isNotInstanceOf(SettableClock.class);
            });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class App {

        @Bean
        Clock clock() {
            return Clock.systemUTC();
        }

        @Bean
        SimpleDriverDataSource dataSource() {
            return new SimpleDriverDataSource(); // never connected to: the tasks are in memory
        }

        @Bean
        Reminders reminders() {
            return new Reminders();
        }
    }

    static class Reminders {

        final List<String> sent = new CopyOnWriteArrayList<>();

        @DelayedHandler(type = "reminder")
        void send(String text) {
            sent.add(text);
        }
    }
}
