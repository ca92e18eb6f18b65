package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.index.TimeIndex;
import io.github.delayqueue.runtime.DelayQueueRuntime;
import io.github.delayqueue.testservices.TestDatabase;
import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** When the queue's beans exist, back off, and fail: each condition on a real database. */
class DelayQueueAutoConfigurationIT {

    private static final TestDatabase db = TestServices.newDatabase();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
                DataRedisAutoConfiguration.class, DelayQueueAutoConfiguration.class))
        .withPropertyValues(db.springProperties())
        .withPropertyValues("spring.data.redis.url=" + TestServices.redisUrl(),
                "delay.redis.key-prefix=" + TestServices.newKeyPrefix());

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class Enabled {
    }

    @Configuration(proxyBeanMethods = false)
    static class NotEnabled {
    }

    @Test
    void withoutEnableDelayQueueNothingIsDefined() {
        runner.withUserConfiguration(NotEnabled.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayQueue.class);
            assertThat(context).doesNotHaveBean(DelayQueueRuntime.class);
        });
    }

    @Test
    void enabledDefinesTheQueueTheEngineAndTheRedisIndex() {
        runner.withUserConfiguration(Enabled.class).run(context -> {
            assertThat(context).hasSingleBean(DelayQueue.class);
            assertThat(context).hasSingleBean(TimeIndex.class);
            DelayQueueRuntime.Status status = context.getBean(DelayQueueRuntime.class).status();
            assertThat(status.mode()).isEqualTo(DelayQueueRuntime.Mode.HYBRID);
            assertThat(status.instanceId()).as("an engine").isNotNull();
        });
    }

    /** Property validation, and the rest that needs no database: {@link DelayQueueAutoConfigurationTests}. */
    @Test
    void jdbcModeNeedsNoRedis() {
        runner.withUserConfiguration(Enabled.class)
            .withPropertyValues("delay.mode=jdbc")
            .withClassLoader(DelayQueueAutoConfigurationTests.WITHOUT_REDIS)
            .run(context -> {
                assertThat(context).hasSingleBean(DelayQueue.class);
                assertThat(context).doesNotHaveBean(TimeIndex.class);
            });
    }

    @Test
    void hybridModeWithoutRedisFailsNamingTheWayOut() {
        runner.withUserConfiguration(Enabled.class)
            .withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("delay.mode")
                .hasMessageContaining("delay.mode=jdbc"));
    }

    @Test
    void producerOnlyInstancesScheduleButNeverRun() {
        runner.withUserConfiguration(Enabled.class).withPropertyValues("delay.worker.enabled=false").run(context -> {
            assertThat(context).hasSingleBean(DelayQueue.class);
            assertThat(context.getBean(DelayQueueRuntime.class).status().instanceId()).as("no engine").isNull();
            long id = context.getBean(DelayQueue.class).schedule("t", "x", Duration.ZERO);
            assertThat(context.getBean(DelayQueue.class).find(id)).isPresent();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class OwnCodec {

        static final PayloadCodec codec = new io.github.delayqueue.handler.JacksonPayloadCodec(
                tools.jackson.databind.json.JsonMapper.builder().build());

        @Bean
        PayloadCodec myCodec() {
            return codec;
        }
    }

    @Test
    void userBeansReplaceOurs() {
        runner.withUserConfiguration(OwnCodec.class)
            .run(context -> assertThat(context.getBean(PayloadCodec.class)).isSameAs(OwnCodec.codec));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class TwoHandlersForOneType {

        @Bean
        First first() {
            return new First();
        }

        @Bean
        Second second() {
            return new Second();
        }
    }

    static class First {

        @DelayedHandler(type = "dup")
        void handle(String payload) {
        }
    }

    static class Second {

        @DelayedHandler(type = "${dup.type:dup}")
        void handleToo(String payload, TaskContext context) {
        }
    }

    @Test
    void twoHandlersForOneTypeFailStartupNamingBoth() {
        runner.withUserConfiguration(TwoHandlersForOneType.class)
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("'dup'")
                .hasMessageContaining("First.handle(String)")
                .hasMessageContaining("Second.handleToo(String, TaskContext)"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class BadSignature {

        @Bean
        TwoPayloads twoPayloads() {
            return new TwoPayloads();
        }
    }

    static class TwoPayloads {

        @DelayedHandler(type = "bad")
        void handle(String payload, Long other) {
        }
    }

    @Test
    void aHandlerThatCannotBeBoundFailsStartup() {
        runner.withUserConfiguration(BadSignature.class)
            .run(context -> assertThat(context).getFailure()
                .rootCause()
                .hasMessageContaining("TwoPayloads.handle(String, Long)")
                .hasMessageContaining("more than one payload parameter"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDelayQueue
    static class BadBackoff {

        @Bean
        Object badBackoffHandler() {
            return new Object() {
                @DelayedHandler(type = "b", backoff = "soon")
                void handle() {
                }
            };
        }
    }

    @Test
    void anUnparsableHandlerAttributeFailsStartup() {
        runner.withUserConfiguration(BadBackoff.class)
            .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("soon"));
    }
}
