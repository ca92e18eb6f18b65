package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Set;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * For a native image, registers what {@link DelayedHandlerRegistrar} does by reflection: it invokes each
 * {@link DelayedHandler} method of a bean, and Jackson binds the method's payload parameter from JSON. Like Spring's
 * own AOT processing, it sees the bean's declared type: a {@code @Bean} method should return the handler's class.
 */
class DelayedHandlerAotProcessor implements BeanRegistrationAotProcessor {

    private final BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
        ReflectionUtils.MethodFilter annotated = method -> AnnotatedElementUtils.hasAnnotation(method,
                DelayedHandler.class);
        Set<Method> handlers = MethodIntrospector.selectMethods(bean.getBeanClass(), annotated);
        if (handlers.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            for (Method handler : handlers) {
                reflection.registerMethod(handler, ExecutableMode.INVOKE);
                for (Parameter parameter : handler.getParameters()) {
                    if (parameter.getType() != TaskContext.class) {
                        binding.registerReflectionHints(reflection, parameter.getParameterizedType());
                    }
                }
            }
        };
    }
}
