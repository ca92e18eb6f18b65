package io.github.delayqueue.handler;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.stream.Collectors;

import io.github.delayqueue.api.TaskContext;
import org.jspecify.annotations.Nullable;

/**
 * A bean method that handles one task type. It may take one payload parameter and a {@link TaskContext}, in any
 * order; anything else is rejected when the handler is built, so a wrong signature fails startup, not a task.
 */
final class MethodTaskHandler implements TaskHandler {

    private final String type;

    private final HandlerSettings settings;

    private final Object bean;

    private final Method method;

    private final int payloadIndex;

    private final int contextIndex;

    private final String description;

    /**
     * @param bean the bean (a proxy is fine)
     * @param method the method to call on {@code bean}, already made invocable on it
     * @param declared the method as declared, for messages
     */
    public MethodTaskHandler(String type, HandlerSettings settings, Object bean, Method method, Method declared) {
        this.type = type;
        this.settings = settings;
        this.bean = bean;
        this.method = method;
        this.description = describe(declared);
        int payload = -1;
        int context = -1;
        Class<?>[] parameters = declared.getParameterTypes();
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i] == TaskContext.class) {
                if (context >= 0) {
                    throw invalid("declares TaskContext twice");
                }
                context = i;
            }
            else if (payload >= 0) {
                throw invalid("has more than one payload parameter (" + parameters[payload].getSimpleName() + " and "
                        + parameters[i].getSimpleName()
                        + "); a handler takes one payload and optionally a TaskContext");
            }
            else {
                payload = i;
            }
        }
        this.payloadIndex = payload;
        this.contextIndex = context;
        method.setAccessible(true);
    }

    private IllegalStateException invalid(String problem) {
        return new IllegalStateException("@DelayedHandler(type = \"" + type + "\") method " + description + " "
                + problem);
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName() + "("
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
                + ")";
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public HandlerSettings settings() {
        return settings;
    }

    @Override
    public @Nullable Type payloadType() {
        return payloadIndex < 0 ? null : method.getGenericParameterTypes()[payloadIndex];
    }

    @Override
    public void handle(@Nullable Object payload, TaskContext context) throws Exception {
        @Nullable Object[] args = new Object[method.getParameterCount()];
        if (payloadIndex >= 0) {
            args[payloadIndex] = payload;
        }
        if (contextIndex >= 0) {
            args[contextIndex] = context;
        }
        try {
            method.invoke(bean, args);
        }
        catch (InvocationTargetException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw ex;
        }
    }

    @Override
    public String description() {
        return description;
    }
}
