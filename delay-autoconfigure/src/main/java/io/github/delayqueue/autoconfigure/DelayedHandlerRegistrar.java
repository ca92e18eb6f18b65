package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.MethodTaskHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link DelayedHandler} methods on every bean (proxies included) and registers them. Attribute values are
 * resolved like ShedLock's: {@code ${...}} placeholders, durations such as {@code 10s}; a bad value or signature
 * fails startup with the method and attribute named.
 */
final class DelayedHandlerRegistrar implements BeanPostProcessor, EmbeddedValueResolverAware {

    private final ObjectProvider<HandlerRegistry> registry;

    private final ObjectProvider<DelayQueueProperties> properties;

    private @Nullable StringValueResolver resolver;

    DelayedHandlerRegistrar(ObjectProvider<HandlerRegistry> registry, ObjectProvider<DelayQueueProperties> properties) {
        this.registry = registry;
        this.properties = properties;
    }

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.resolver = resolver;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(target, DelayedHandler.class)) {
            return bean;
        }
        Map<Method, DelayedHandler> methods = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<DelayedHandler>) method -> AnnotatedElementUtils
                    .findMergedAnnotation(method, DelayedHandler.class));
        methods.forEach((method, annotation) -> register(bean, method, annotation));
        return bean;
    }

    private void register(Object bean, Method method, DelayedHandler annotation) {
        String where = "@DelayedHandler on " + method.getDeclaringClass().getName() + "." + method.getName();
        String type = resolve(annotation.type());
        if (type.isBlank()) {
            throw new IllegalStateException(where + ": type must not be blank");
        }
        if (annotation.maxAttempts() < 0) {
            throw new IllegalStateException(where + ": maxAttempts must be at least 1, or 0 for the default");
        }
        if (annotation.concurrency() < 0) {
            throw new IllegalStateException(where + ": concurrency must not be negative");
        }
        HandlerSettings settings = new HandlerSettings(annotation.maxAttempts() == 0 ? null : annotation.maxAttempts(),
                backoff(where, annotation), annotation.concurrency());
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        registry.getObject().register(new MethodTaskHandler(type, settings, bean, invocable, method));
    }

    private @Nullable Backoff backoff(String where, DelayedHandler annotation) {
        String backoff = resolve(annotation.backoff());
        String multiplier = resolve(annotation.multiplier());
        String maxBackoff = resolve(annotation.maxBackoff());
        if (backoff.isEmpty() && multiplier.isEmpty() && maxBackoff.isEmpty()) {
            return null;
        }
        DelayQueueProperties.Retry defaults = properties.getObject().getRetry();
        try {
            Duration initial = backoff.isEmpty() ? defaults.getBackoff() : DurationStyle.detectAndParse(backoff);
            double factor = multiplier.isEmpty() ? defaults.getMultiplier() : Double.parseDouble(multiplier);
            Duration max = maxBackoff.isEmpty() ? defaults.getMaxBackoff() : DurationStyle.detectAndParse(maxBackoff);
            if (max.compareTo(initial) < 0) {
                max = maxBackoff.isEmpty() ? initial : max;
            }
            return new Backoff(initial, factor, max);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalStateException(where + ": invalid backoff (backoff=\"" + backoff + "\", multiplier=\""
                    + multiplier + "\", maxBackoff=\"" + maxBackoff + "\"): " + ex.getMessage()
                    + "; use durations like 10s or PT10S and a multiplier >= 1", ex);
        }
    }

    private String resolve(String value) {
        if (resolver == null || value.isEmpty()) {
            return value;
        }
        String resolved = resolver.resolveStringValue(value);
        return resolved == null ? "" : resolved.trim();
    }
}
