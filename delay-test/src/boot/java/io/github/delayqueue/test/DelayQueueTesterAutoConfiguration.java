package io.github.delayqueue.test;

import java.time.Clock;

import io.github.delayqueue.autoconfigure.DelayQueueRuntimeCustomizer;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Test mode of the delay queue, on {@code delay.test.enabled=true} (which {@link AutoConfigureDelayQueueTester}
 * sets): a {@link DelayQueueTester} bean, and a {@link DelayQueueRuntimeCustomizer}, called after the application's
 * own, that gives the runtime the tester's clock, makes it driven by the tester and, with
 * {@code delay.test.store=in-memory}, puts its tasks in an {@link InMemoryTaskStore}. A JDK {@link Clock} bean of the
 * application becomes the tester's clock, so the application and the queue go by the same time. Public, as Spring
 * Boot requires of an auto-configuration; applications use the annotation or the property.
 */
// by name: delay-autoconfigure is an optional dependency of delay-test, which a project may use without it
@AutoConfiguration(beforeName = "io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration")
@ConditionalOnClass(name = "io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration")
@ConditionalOnBooleanProperty("delay.test.enabled")
public final class DelayQueueTesterAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayQueueTester delayQueueTester(ObjectProvider<DelayQueueRuntime> runtime) {
        return new DelayQueueTester(DelayQueueTester.startClock(), runtime::getObject);
    }

    /** Last, so that no customizer of the application takes the clock or the mode back. */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    DelayQueueRuntimeCustomizer delayQueueTestMode(DelayQueueTester tester, Environment environment) {
        boolean inMemory = store(environment) == AutoConfigureDelayQueueTester.Store.IN_MEMORY;
        return builder -> {
            if (inMemory) {
                InMemoryTaskStore store = new InMemoryTaskStore(tester.clock());
                builder.store(store, new InMemoryTaskInspector(store));
            }
            tester.configure(builder);
        };
    }

    /** In hybrid mode on the in-memory store, an index in memory too: the test needs no Redis. */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(InMemoryStore.class)
    TimeIndex delayQueueTestTimeIndex() {
        return new InMemoryTimeIndex(1);
    }

    @Bean
    static BeanPostProcessor delayQueueTestClock(ObjectProvider<DelayQueueTester> tester) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                // a clock of the JDK's (Clock.systemUTC(), fixed, offset): a class of the application's own may
                // carry more than time, and its type is what the application injects
                if (bean instanceof Clock && bean.getClass().getName().startsWith("java.time.")) {
                    return tester.getObject().clock();
                }
                return bean;
            }
        };
    }

    static AutoConfigureDelayQueueTester.Store store(Environment environment) {
        return Binder.get(environment)
            .bind("delay.test.store", AutoConfigureDelayQueueTester.Store.class)
            .orElse(AutoConfigureDelayQueueTester.Store.DATABASE);
    }

    /** {@code delay.test.store=in-memory}, as the binder reads it ({@code IN_MEMORY} too). */
    static final class InMemoryStore extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            AutoConfigureDelayQueueTester.Store store = store(context.getEnvironment());
            ConditionMessage.Builder message = ConditionMessage.forCondition("delay.test.store=in-memory");
            return store == AutoConfigureDelayQueueTester.Store.IN_MEMORY ? ConditionOutcome.match(message.because(
                    "in memory")) : ConditionOutcome.noMatch(message.because("it is " + store));
        }
    }
}
