package io.github.delayqueue.handler;

import java.time.Duration;

import io.github.delayqueue.api.DelayedHandler;
import org.junit.jupiter.api.Test;

import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @DelayedHandler} methods of a plain object, as the runtime's builder registers them without Spring Boot. */
class AnnotatedHandlersTest {

    private static final Backoff DEFAULTS = new Backoff(Duration.ofSeconds(10), 2.0, Duration.ofHours(1));

    @Test
    void durationsAreWrittenAsInSpringBootsPropertiesOrIso() {
        assertThat(AnnotatedHandlers.duration("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(AnnotatedHandlers.duration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(AnnotatedHandlers.duration("250")).isEqualTo(Duration.ofMillis(250));
        assertThat(AnnotatedHandlers.duration("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(AnnotatedHandlers.duration("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
        assertThatThrownBy(() -> AnnotatedHandlers.duration("soon")).hasMessageContaining("'soon' is not a duration");
        assertThatThrownBy(() -> AnnotatedHandlers.duration("5w")).hasMessageContaining("unknown unit");
    }

    @Test
    void aMethodsAttributesFillFromTheDefaultsItLeavesOut() {
        HandlerRegistry registry = new HandlerRegistry();
        registry.registerAnnotated(new Handlers(), value -> value.replace("${retry}", "30s"), () -> DEFAULTS);

        TaskHandler handler = registry.find("mail.send");
        assertThat(handler).isNotNull();
        assertThat(handler.settings().backoff()).isEqualTo(new Backoff(Duration.ofSeconds(30), 2.0,
                Duration.ofHours(1)));
        assertThat(handler.settings().maxAttempts()).isEqualTo(5);
        assertThat(registry.find("plain")).isNotNull();
    }

    @Test
    void aBadAttributeNamesTheMethodAndTheValue() {
        assertThatThrownBy(() -> new HandlerRegistry().registerAnnotated(new BadBackoff(), value -> value,
                () -> DEFAULTS))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("BadBackoff.handle")
            .hasMessageContaining("soon");
    }

    @Test
    void aTimeoutIsADurationWithPlaceholdersResolvedAndEmptyTakesTheQueueWideDefault() {
        HandlerRegistry registry = new HandlerRegistry();
        registry.registerAnnotated(new Timeouts(), value -> value.replace("${mail.timeout}", "PT2M"), () -> DEFAULTS);

        assertThat(registry.find("report").settings().timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(registry.find("mail").settings().timeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(registry.find("plain").settings().timeout()).as("none of its own").isNull();
    }

    @Test
    void aTimeoutThatIsNoPositiveDurationNamesTheMethodAndTheValue() {
        assertThatThrownBy(() -> new HandlerRegistry().registerAnnotated(new BadTimeout(), value -> value,
                () -> DEFAULTS))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("BadTimeout.handle")
            .hasMessageContaining("invalid timeout \"forever\"")
            .hasMessageContaining("delay.worker.handler-timeout");
        assertThatThrownBy(() -> new HandlerRegistry().registerAnnotated(new ZeroTimeout(), value -> value,
                () -> DEFAULTS))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("ZeroTimeout.handle")
            .hasMessageContaining("timeout must be a positive duration such as 30s, not \"0s\"");
    }

    @Test
    void clusterWideLimitsAreWholeNumbersWithPlaceholdersResolvedAndEmptyMeansNone() {
        HandlerRegistry registry = new HandlerRegistry();
        registry.registerAnnotated(new Limits(), value -> value.replace("${calls}", "7"), () -> DEFAULTS);

        assertThat(registry.find("capped").settings().clusterConcurrency()).isEqualTo(3);
        assertThat(registry.find("capped").settings().clusterStartsPerSecond()).as("from a placeholder").isEqualTo(7);
        assertThat(registry.find("plain").settings().clusterConcurrency()).isZero();
        assertThat(registry.find("plain").settings().clusterStartsPerSecond()).isZero();
        assertThatThrownBy(() -> new HandlerRegistry().registerAnnotated(new BadLimit(), value -> value.replace(
                "${calls}", "many"), () -> DEFAULTS))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("BadLimit.handle")
            .hasMessageContaining("clusterStartsPerSecond must be a whole number, 0 or more (0 or empty for no "
                    + "limit), not \"many\" (from \"${calls}\")");
    }

    static class Limits {

        @DelayedHandler(type = "capped", clusterConcurrency = "3", clusterStartsPerSecond = "${calls}")
        void capped() {
        }

        @DelayedHandler(type = "plain")
        void plain() {
        }
    }

    static class BadLimit {

        @DelayedHandler(type = "bad", clusterStartsPerSecond = "${calls}")
        void handle() {
        }
    }

    @Test
    void aHandlerCompletesInItsTransactionWhenItSaysSoOrItsTransactionalJoinsTheQueues() {
        HandlerRegistry registry = new HandlerRegistry();
        registry.registerAnnotated(new TransactionalHandlers(), value -> value, () -> DEFAULTS);

        assertThat(registry.find("plain").settings().transactional()).as("neither").isFalse();
        assertThat(registry.find("declared").settings().transactional()).as("transactional = true").isTrue();
        assertThat(registry.find("spring").settings().transactional()).as("@Transactional").isTrue();
        assertThat(registry.find("mandatory").settings().transactional()).as("@Transactional(MANDATORY)").isTrue();
        assertThat(registry.find("own").settings().transactional()).as("@Transactional(REQUIRES_NEW)").isFalse();
        assertThat(registry.find("none").settings().transactional()).as("@Transactional(NOT_SUPPORTED)").isFalse();
        HandlerRegistry onClass = new HandlerRegistry();
        onClass.registerAnnotated(new TransactionalClass(), value -> value, () -> DEFAULTS);
        assertThat(onClass.find("on-class").settings().transactional()).as("@Transactional on the class").isTrue();
    }

    @Test
    void transactionalWithATransactionalThatRunsOutsideTheQueuesIsAnError() {
        assertThatThrownBy(() -> new HandlerRegistry().registerAnnotated(new Contradiction(), value -> value,
                () -> DEFAULTS))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("Contradiction.handle")
            .hasMessageContaining("REQUIRES_NEW");
    }

    static class TransactionalHandlers {

        @DelayedHandler(type = "plain")
        void plain() {
        }

        @DelayedHandler(type = "declared", transactional = true)
        void declared() {
        }

        @Transactional
        @DelayedHandler(type = "spring")
        void spring() {
        }

        @Transactional(propagation = Propagation.MANDATORY)
        @DelayedHandler(type = "mandatory")
        void mandatory() {
        }

        @Transactional(propagation = Propagation.REQUIRES_NEW)
        @DelayedHandler(type = "own")
        void own() {
        }

        @Transactional(propagation = Propagation.NOT_SUPPORTED)
        @DelayedHandler(type = "none")
        void none() {
        }
    }

    @Transactional
    static class TransactionalClass {

        @DelayedHandler(type = "on-class")
        void handle() {
        }
    }

    static class Contradiction {

        @Transactional(propagation = Propagation.REQUIRES_NEW)
        @DelayedHandler(type = "c", transactional = true)
        void handle() {
        }
    }

    static class Handlers {

        @DelayedHandler(type = "mail.send", maxAttempts = 5, backoff = "${retry}")
        void send(String address) {
        }

        @DelayedHandler(type = "plain")
        void plain() {
        }
    }

    static class Timeouts {

        @DelayedHandler(type = "report", timeout = "30s")
        void report() {
        }

        @DelayedHandler(type = "mail", timeout = "${mail.timeout}")
        void mail() {
        }

        @DelayedHandler(type = "plain")
        void plain() {
        }
    }

    static class BadTimeout {

        @DelayedHandler(type = "b", timeout = "forever")
        void handle() {
        }
    }

    static class ZeroTimeout {

        @DelayedHandler(type = "z", timeout = "0s")
        void handle() {
        }
    }

    static class BadBackoff {

        @DelayedHandler(type = "b", backoff = "soon")
        void handle() {
        }
    }
}
