package io.github.delayqueue.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.store.TaskStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.mockito.Mockito.mock;

/**
 * An application that forgot {@code @EnableDelayQueue} is told so: a warning when it has {@code @DelayedHandler}
 * methods, and a failure analysis naming the annotation when a bean needs the {@link DelayQueue}.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueNotEnabledTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                DelayQueueNotEnabledAutoConfiguration.class));

    static class OrderTimeouts {

        @DelayedHandler(type = "order.cancel")
        void cancel(String order) {
        }

        @DelayedHandler(type = "order.remind")
        void remind(String order) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlersOnly {

        @Bean
        OrderTimeouts orderTimeouts() {
            return new OrderTimeouts();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class HandlersAndEnabled extends HandlersOnly {
    }

    @Test
    void handlersWithoutEnableDelayQueueGetAWarningSayingWhatToAdd(CapturedOutput output) {
        runner.withUserConfiguration(HandlersOnly.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayQueue.class);
        });
        assertThat(output).contains("Found 2 @DelayedHandler method(s)")
            .contains(OrderTimeouts.class.getName() + ".cancel")
            .contains(OrderTimeouts.class.getName() + ".remind")
            .contains("Add @EnableDelayQueue to your @SpringBootApplication class");
    }

    @Test
    void noHandlersNoWarning(CapturedOutput output) {
        runner.run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("@DelayedHandler");
    }

    @Test
    void withEnableDelayQueueNoWarning(CapturedOutput output) {
        runner.withUserConfiguration(HandlersAndEnabled.class)
            .withBean(DataSource.class, () -> mock(DataSource.class))
            .withBean(TaskStore.class, () -> mock(TaskStore.class))
            .withPropertyValues("delay.mode=jdbc", "delay.jdbc.initialize-schema=never", "delay.worker.enabled=false",
                    "delay.clock.source=local")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(DelayQueue.class);
                assertThat(context).doesNotHaveBean(HandlersWithoutQueueWarning.class);
            });
        assertThat(output).doesNotContain("no configuration class carries @EnableDelayQueue");
    }

    @Test
    void theWarningNamesAFewHandlersAndCountsTheRest() {
        assertThat(HandlersWithoutQueueWarning.message(List.of("A.a", "B.b", "C.c", "D.d", "E.e")))
            .startsWith("Found 5 @DelayedHandler method(s) (A.a, B.b, C.c and 2 more)");
    }

    static class Orders {

        Orders(DelayQueue queue) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NeedsTheQueue {

        @Bean
        Orders orders(DelayQueue queue) {
            return new Orders(queue);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class NeedsTheQueueEnabled extends NeedsTheQueue {
    }

    /** Spring Boot prints the analysis of a failed start; the first analyzer with an answer is ours. */
    @Test
    void aMissingDelayQueueIsExplainedByTheMissingAnnotation(CapturedOutput output) {
        SpringApplication application = new SpringApplication(NeedsTheQueue.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(application::run);
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("required a bean of type 'io.github.delayqueue.api.DelayQueue', which the delay queue defines "
                    + "only when it is switched on, and no configuration class carries @EnableDelayQueue")
            .contains("Add @EnableDelayQueue to your @SpringBootApplication class");
    }

    /** With the annotation, a missing queue has another cause; Spring Boot's own analysis explains it. */
    @Test
    void withTheAnnotationBootsOwnAnalysisExplains(CapturedOutput output) {
        SpringApplication application = new SpringApplication(NeedsTheQueueEnabled.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(application::run);
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("required a bean of type 'io.github.delayqueue.api.DelayQueue' that could not be found")
            .doesNotContain("no configuration class carries @EnableDelayQueue");
    }
}
