package io.github.delayqueue.handler;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.api.DelayedHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Turns the {@link DelayedHandler} methods of an object (a Spring proxy included) into handlers. Attribute values go
 * through a resolver first (Spring Boot's resolves {@code ${...}} placeholders); durations are written as
 * {@code 10s}, {@code 500ms}, {@code 2h} or ISO-8601 ({@code PT10S}); a bad value or signature is an error naming the
 * method and the attribute.
 */
final class AnnotatedHandlers {

    /** A number and an optional unit, as Spring Boot's simple duration style writes them. */
    private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

    /** Propagations under which a {@code @Transactional} handler's work would not be in the queue's transaction. */
    private static final Set<Propagation> SEPARATE = EnumSet.of(Propagation.REQUIRES_NEW, Propagation.NOT_SUPPORTED,
            Propagation.NEVER);

    private AnnotatedHandlers() {
    }

    static void register(HandlerRegistry registry, Object bean, UnaryOperator<String> resolver,
            Supplier<Backoff> defaults) {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(target, DelayedHandler.class)) {
            return;
        }
        Map<Method, DelayedHandler> methods = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<DelayedHandler>) method -> AnnotatedElementUtils
                    .findMergedAnnotation(method, DelayedHandler.class));
        methods.forEach((method, annotation) -> registry.register(handler(bean, method, annotation, resolver,
                defaults)));
    }

    private static TaskHandler handler(Object bean, Method method, DelayedHandler annotation,
            UnaryOperator<String> resolver, Supplier<Backoff> defaults) {
        String where = "@DelayedHandler on " + method.getDeclaringClass().getName() + "." + method.getName();
        String type = resolve(resolver, annotation.type());
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
                backoff(where, annotation, resolver, defaults), annotation.concurrency(),
                transactional(where, method, annotation), timeout(where, annotation, resolver),
                limit(where, "clusterConcurrency", annotation.clusterConcurrency(), resolver),
                limit(where, "clusterStartsPerSecond", annotation.clusterStartsPerSecond(), resolver));
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        return new MethodTaskHandler(type, settings, bean, invocable, method);
    }

    /**
     * {@code transactional = true}, or Spring's {@code @Transactional} on the method or its class with a propagation
     * that joins the queue's transaction. A {@code @Transactional} that opens a transaction of its own, or runs
     * without one, keeps its meaning: the handler completes after it returns, as any other.
     */
    private static boolean transactional(String where, Method method, DelayedHandler annotation) {
        Transactional declared = AnnotatedElementUtils.findMergedAnnotation(method, Transactional.class);
        if (declared == null) {
            declared = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), Transactional.class);
        }
        boolean joins = declared != null && !SEPARATE.contains(declared.propagation());
        if (annotation.transactional() && declared != null && !joins) {
            throw new IllegalStateException(where + ": transactional = true needs the handler's work in the queue's "
                    + "transaction, but its @Transactional(propagation = " + declared.propagation() + ") runs it "
                    + "outside; use REQUIRED (the default) or drop one of the two");
        }
        return annotation.transactional() || joins;
    }

    private static @Nullable Duration timeout(String where, DelayedHandler annotation,
            UnaryOperator<String> resolver) {
        String timeout = resolve(resolver, annotation.timeout());
        if (timeout.isEmpty()) {
            return null;
        }
        Duration parsed;
        try {
            parsed = duration(timeout);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalStateException(where + ": invalid timeout \"" + timeout + "\": " + ex.getMessage()
                    + "; use a duration like 30s or PT30S, or leave it empty for delay.worker.handler-timeout", ex);
        }
        if (parsed.isNegative() || parsed.isZero()) {
            throw new IllegalStateException(where + ": timeout must be a positive duration such as 30s, not \""
                    + timeout + "\"; leave it empty for delay.worker.handler-timeout");
        }
        return parsed;
    }

    /** A cluster-wide limit: a whole number, 0 (or empty) for none. */
    private static int limit(String where, String attribute, String value, UnaryOperator<String> resolver) {
        String resolved = resolve(resolver, value);
        if (resolved.isEmpty()) {
            return 0;
        }
        try {
            int limit = Integer.parseInt(resolved);
            if (limit >= 0) {
                return limit;
            }
        }
        catch (NumberFormatException ex) {
            // said below, with the value
        }
        throw new IllegalStateException(where + ": " + attribute + " must be a whole number, 0 or more (0 or empty for "
                + "no limit), not \"" + resolved + "\"" + (resolved.equals(value) ? "" : " (from \"" + value + "\")"));
    }

    private static @Nullable Backoff backoff(String where, DelayedHandler annotation, UnaryOperator<String> resolver,
            Supplier<Backoff> defaultBackoff) {
        String backoff = resolve(resolver, annotation.backoff());
        String multiplier = resolve(resolver, annotation.multiplier());
        String maxBackoff = resolve(resolver, annotation.maxBackoff());
        if (backoff.isEmpty() && multiplier.isEmpty() && maxBackoff.isEmpty()) {
            return null;
        }
        Backoff defaults = defaultBackoff.get();
        try {
            Duration initial = backoff.isEmpty() ? defaults.initial() : duration(backoff);
            double factor = multiplier.isEmpty() ? defaults.multiplier() : Double.parseDouble(multiplier);
            Duration max = maxBackoff.isEmpty() ? defaults.max() : duration(maxBackoff);
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

    /** {@code 10s}, {@code 500ms}, {@code 2h}, a bare number of milliseconds, or ISO-8601. */
    static Duration duration(String value) {
        Matcher simple = SIMPLE.matcher(value);
        if (!simple.matches()) {
            try {
                return Duration.parse(value);
            }
            catch (DateTimeParseException ex) {
                // the parser's own message does not name the text; this one does, and is the root cause
                throw new IllegalArgumentException("'" + value + "' is not a duration (" + ex.getMessage() + ")");
            }
        }
        long amount = Long.parseLong(simple.group(1));
        return switch (simple.group(2).toLowerCase(java.util.Locale.ROOT)) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.of(amount, ChronoUnit.MICROS);
            case "", "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> throw new IllegalArgumentException(
                    "'" + value + "' has an unknown unit: use ns, us, ms, s, m, h or d");
        };
    }

    private static String resolve(UnaryOperator<String> resolver, String value) {
        if (value.isEmpty()) {
            return value;
        }
        String resolved = resolver.apply(value);
        return resolved == null ? "" : resolved.trim();
    }
}
