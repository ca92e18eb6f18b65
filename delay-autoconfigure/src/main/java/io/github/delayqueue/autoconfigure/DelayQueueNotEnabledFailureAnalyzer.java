package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.api.EnableDelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.analyzer.AbstractInjectionFailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Explains a missing {@code DelayQueue} (or another of the queue's beans) when no configuration class carries
 * {@link EnableDelayQueue}: the starter defines nothing until then, and Spring Boot's own analysis would only list
 * the conditions that did not match. Ordered before Spring Boot's {@code NoSuchBeanDefinitionFailureAnalyzer},
 * which still explains every other missing bean.
 */
class DelayQueueNotEnabledFailureAnalyzer extends AbstractInjectionFailureAnalyzer<NoSuchBeanDefinitionException>
        implements Ordered {

    private static final String PACKAGE = "io.github.delayqueue.";

    private final @Nullable BeanFactory beanFactory;

    DelayQueueNotEnabledFailureAnalyzer(@Nullable BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause,
            @Nullable String description) {
        Class<?> type = cause.getResolvableType() == null ? null : cause.getResolvableType().resolve();
        if (type == null || !type.getName().startsWith(PACKAGE) || !(beanFactory instanceof ListableBeanFactory beans)
                || beans.getBeanNamesForAnnotation(EnableDelayQueue.class).length > 0) {
            return null;
        }
        return new FailureAnalysis((description != null ? description : "A component") + " required a bean of type '"
                + type.getName() + "', which the delay queue defines only when it is switched on, and no "
                + "configuration class carries @EnableDelayQueue.",
                "Add @EnableDelayQueue to your @SpringBootApplication class (or another @Configuration class). The "
                        + "starter defines nothing without it, so that adding the dependency alone never starts "
                        + "polling a database.",
                cause);
    }

    @Override
    public int getOrder() {
        return 0;
    }
}
