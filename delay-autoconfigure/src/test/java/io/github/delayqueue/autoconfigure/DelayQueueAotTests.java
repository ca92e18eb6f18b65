package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import org.junit.jupiter.api.Test;

import org.springframework.aot.AotDetector;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue is ready for Spring's ahead-of-time processing (and so for a native image): an application's AOT run
 * registers its {@link DelayedHandler} methods for invocation, their payload types for JSON binding, and the queue's
 * Lua scripts and migrations as resources.
 */
class DelayQueueAotTests {

    public record Reminder(long orderId, String channel) {
    }

    static class Reminders {

        @DelayedHandler(type = "order.remind")
        void remind(Reminder reminder, TaskContext context) {
        }

        void notAHandler() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    @ImportAutoConfiguration(DelayQueueAutoConfiguration.class)
    static class App {

        @Bean
        Reminders reminders() {
            return new Reminders();
        }
    }

    @Test
    void anApplicationsAotRunRegistersHandlersPayloadsAndResources() throws Exception {
        RuntimeHints hints = processAheadOfTime(App.class);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(Reminders.class.getDeclaredMethod("remind", Reminder.class, TaskContext.class)))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Reminders.class, "notAHandler"))
            .rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onType(Reminder.class)
            .withMemberCategories(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
        for (String resource : resources("io/github/delayqueue/index/*.lua", "db/delay/migration/*.sql")) {
            assertThat(RuntimeHintsPredicates.resource().forResource(resource)).as(resource).accepts(hints);
        }
    }

    @Test
    void theResourceHintsCoverEveryScriptAndMigration() throws IOException {
        RuntimeHints hints = new RuntimeHints();
        new DelayQueueRuntimeHints().registerHints(hints, getClass().getClassLoader());
        List<String> resources = resources(DelayQueueRuntimeHints.LUA_SCRIPTS, DelayQueueRuntimeHints.MIGRATIONS);
        assertThat(resources).hasSize(12).contains("io/github/delayqueue/index/pop.lua",
                "db/delay/migration/V1__create_delay_task.sql", "db/delay/migration/V6__claim_index_by_type.sql",
                "db/delay/migration/V7__type_limits.sql");
        for (String resource : resources) {
            assertThat(RuntimeHintsPredicates.resource().forResource(resource)).as(resource).accepts(hints);
        }
    }

    @Test
    void bothAreListedInAotFactories() {
        assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
            .hasAtLeastOneElementOfType(DelayQueueRuntimeHints.class);
        assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class))
            .hasAtLeastOneElementOfType(DelayedHandlerAotProcessor.class);
    }

    private static RuntimeHints processAheadOfTime(Class<?> configuration) {
        assertThat(AotDetector.useGeneratedArtifacts()).isFalse();
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.register(configuration);
            DefaultGenerationContext generation = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get(DelayQueueAotTests.class)), new InMemoryGeneratedFiles());
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
            return generation.getRuntimeHints();
        }
    }

    private static List<String> resources(String... patterns) throws IOException {
        PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
        List<String> found = new ArrayList<>();
        for (String pattern : patterns) {
            String folder = pattern.substring(0, pattern.lastIndexOf('/') + 1);
            for (Resource resource : resolver.getResources("classpath*:" + pattern)) {
                found.add(folder + resource.getFilename());
            }
        }
        return found;
    }
}
