package io.github.delayqueue.autoconfigure;

import javax.sql.DataSource;

import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.store.TaskStore;
import io.github.delayqueue.test.InMemoryTaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The context the fast auto-configuration tests start from: the queue's auto-configuration on an
 * {@link InMemoryTaskStore}, a {@link RefusingDataSource}, the schema left alone, no engine, the local clock and jdbc
 * mode. Nothing reaches a database or Redis, so a context starts in milliseconds; what needs them is in the ITs.
 */
final class QueueContexts {

    /** The properties under which no context of the queue connects to anything. */
    static final String[] NO_SERVICES = { "delay.mode=jdbc", "delay.jdbc.initialize-schema=never",
            "delay.worker.enabled=false", "delay.clock.source=local" };

    private QueueContexts() {
    }

    /** The queue's auto-configuration on an in-memory store; the test adds {@link Enabled} and what it checks. */
    static ApplicationContextRunner queue() {
        return bare().withBean(DataSource.class, RefusingDataSource::new).withUserConfiguration(InMemoryStorage.class);
    }

    /** The same without a store or a {@link DataSource}, for tests that bring their own or none. */
    static ApplicationContextRunner bare() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
            .withPropertyValues(NO_SERVICES);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class Enabled {
    }

    @Configuration(proxyBeanMethods = false)
    static class NotEnabled {
    }

    /** The application's own store, in memory, given to the runtime's builder by a customizer. */
    @Configuration(proxyBeanMethods = false)
    @Import(InMemoryStore.class)
    static class InMemoryStorage {

        @Bean
        InMemoryTaskStore userTaskStore() {
            return new InMemoryTaskStore();
        }
    }

    /** Gives the context's one {@link InMemoryTaskStore} bean to the runtime's builder. */
    @Configuration(proxyBeanMethods = false)
    static class InMemoryStore {

        @Bean
        DelayQueueRuntimeCustomizer inMemoryStore(ObjectProvider<TaskStore> store) {
            return builder -> {
                TaskStore chosen = store.getObject();
                builder.store(chosen, new InMemoryTaskInspector((InMemoryTaskStore) chosen));
            };
        }
    }

    /** The application's own inspector, on the in-memory store, for the actuator parts. */
    @Configuration(proxyBeanMethods = false)
    static class InMemoryInspection {

        @Bean
        InMemoryTaskInspector userTaskInspector(InMemoryTaskStore store) {
            return new InMemoryTaskInspector(store);
        }
    }
}
