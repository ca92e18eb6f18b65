package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.handler.HandlerRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link DelayedHandler} methods on every bean (proxies included) and registers them in the registry the
 * runtime looks handlers up in. Attribute values are resolved like ShedLock's: {@code ${...}} placeholders,
 * durations such as {@code 10s}; a bad value or signature fails startup with the method and attribute named.
 */
final class DelayedHandlerRegistrar implements BeanPostProcessor, EmbeddedValueResolverAware {

    private final HandlerRegistry registry = new HandlerRegistry();

    private final ObjectProvider<DelayQueueProperties> properties;

    private @Nullable StringValueResolver resolver;

    DelayedHandlerRegistrar(ObjectProvider<DelayQueueProperties> properties) {
        this.properties = properties;
    }

    /** The registry handlers go into, shared with the runtime (handler beans may be created after it). */
    HandlerRegistry registry() {
        return registry;
    }

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.resolver = resolver;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (AnnotationUtils.isCandidateClass(AopUtils.getTargetClass(bean), DelayedHandler.class)) {
            registry.registerAnnotated(bean, this::resolve,
                    () -> DelayQueueAutoConfiguration.defaultBackoff(properties.getObject().getRetry()));
        }
        return bean;
    }

    private String resolve(String value) {
        if (resolver == null || value.isEmpty()) {
            return value;
        }
        String resolved = resolver.resolveStringValue(value);
        return resolved == null ? "" : resolved;
    }
}
