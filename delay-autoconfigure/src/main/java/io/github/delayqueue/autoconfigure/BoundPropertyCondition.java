package io.github.delayqueue.autoconfigure;

import java.util.Locale;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindResult;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * A condition on an enum property of {@code delay.*}, read as {@link DelayQueueProperties} binds it. A
 * {@code @ConditionalOnProperty} compares the text, so a value the binder takes for the same constant ("hybrid "
 * with the space a properties file keeps) would switch the condition off while the bound property says on: hybrid
 * tiers without a time index, or the local clock where the database's was asked for.
 */
abstract class BoundPropertyCondition<E extends Enum<E>> extends SpringBootCondition {

    private final String name;

    private final Class<E> type;

    private final E byDefault;

    private final E required;

    BoundPropertyCondition(String name, Class<E> type, E byDefault, E required) {
        this.name = name;
        this.type = type;
        this.byDefault = byDefault;
        this.required = required;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        BindResult<E> bound = Binder.get(context.getEnvironment()).bind(name, type);
        E value = bound.isBound() ? bound.get() : byDefault;
        ConditionMessage.Builder message = ConditionMessage.forCondition(name + "=" + lowerCase(required));
        return value == required ? ConditionOutcome.match(message.because("it is " + lowerCase(value)))
                : ConditionOutcome.noMatch(message.because("it is " + lowerCase(value)));
    }

    private static String lowerCase(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    /** {@code delay.mode} is {@code hybrid}, the default. */
    static final class HybridMode extends BoundPropertyCondition<DelayQueueProperties.Mode> {

        HybridMode() {
            super("delay.mode", DelayQueueProperties.Mode.class, DelayQueueProperties.Mode.HYBRID,
                    DelayQueueProperties.Mode.HYBRID);
        }
    }

    /** {@code delay.clock.source} is {@code database}, the default. */
    static final class DatabaseClock extends BoundPropertyCondition<DelayQueueProperties.ClockSource> {

        DatabaseClock() {
            super("delay.clock.source", DelayQueueProperties.ClockSource.class,
                    DelayQueueProperties.ClockSource.DATABASE, DelayQueueProperties.ClockSource.DATABASE);
        }
    }
}
