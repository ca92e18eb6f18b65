package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.EnableDelayQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Looks through the bean classes, before any bean exists, for {@link DelayedHandler} methods, and warns once,
 * naming a few, when there are some: without {@link EnableDelayQueue} they would never run, and an application that
 * forgot the annotation would otherwise learn it only from tasks that stay pending. It only reads bean definitions'
 * types, never creates a bean, and a type it cannot determine is skipped: a warning must not break startup.
 */
final class HandlersWithoutQueueWarning implements BeanFactoryPostProcessor {

    private static final Logger log = LoggerFactory.getLogger(HandlersWithoutQueueWarning.class);

    private static final int NAMED = 3;

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        List<String> handlers = new ArrayList<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = applicationType(beanFactory, name);
            if (type != null && AnnotationUtils.isCandidateClass(type, DelayedHandler.class)) {
                for (Method method : MethodIntrospector.selectMethods(type,
                        (MethodIntrospector.MetadataLookup<DelayedHandler>) candidate -> AnnotatedElementUtils
                            .findMergedAnnotation(candidate, DelayedHandler.class))
                    .keySet()) {
                    handlers.add(type.getName() + "." + method.getName());
                }
            }
        }
        if (!handlers.isEmpty()) {
            log.warn(message(handlers));
        }
    }

    static String message(List<String> handlers) {
        String named = String.join(", ", handlers.subList(0, Math.min(NAMED, handlers.size())))
                + (handlers.size() > NAMED ? " and " + (handlers.size() - NAMED) + " more" : "");
        return "Found " + handlers.size() + " @DelayedHandler method(s) (" + named + "), but no configuration class "
                + "carries @EnableDelayQueue, so the delay queue is off: these handlers never run and there is no "
                + "DelayQueue bean. Add @EnableDelayQueue to your @SpringBootApplication class (or another "
                + "@Configuration class).";
    }

    private static @Nullable Class<?> applicationType(ConfigurableListableBeanFactory beanFactory, String name) {
        try {
            if (beanFactory.getBeanDefinition(name).getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
                return null;
            }
            Class<?> type = beanFactory.getType(name, false);
            return type == null ? null : ClassUtils.getUserClass(type);
        }
        catch (RuntimeException | LinkageError ex) {
            return null;
        }
    }
}
