package io.github.delayqueue.autoconfigure;

import java.util.List;

import io.github.delayqueue.api.EnableDelayQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * Says which driver to add when the queue is switched on and its {@code DataSource} failed for want of a MySQL or
 * MariaDB JDBC driver: the starter brings none (no Spring Boot starter does; the application picks its database's),
 * and without this the application gets a stack trace ending in {@code ClassNotFoundException}. Answers only when
 * neither driver is on the class path and the failure names one of their classes, so an application on another
 * driver (a proxy, a cloud wrapper) keeps Spring Boot's own analysis.
 */
class MissingJdbcDriverFailureAnalyzer implements FailureAnalyzer, Ordered {

    /** The classes Spring Boot picks for {@code jdbc:mysql:} and {@code jdbc:mariadb:} URLs, and the old MySQL one. */
    private static final List<String> DRIVERS = List.of("com.mysql.cj.jdbc.Driver", "org.mariadb.jdbc.Driver",
            "com.mysql.jdbc.Driver");

    private final @Nullable BeanFactory beanFactory;

    MissingJdbcDriverFailureAnalyzer(@Nullable BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        String missing = missingDriver(failure);
        if (missing == null || !queueEnabled() || anyDriverPresent()) {
            return null;
        }
        return new FailureAnalysis("The delay queue's DataSource needs a JDBC driver for MySQL or MariaDB, and the "
                + "class path has none (" + missing + " could not be loaded). The delay starter brings no driver, as "
                + "no Spring Boot starter does: the application adds the one for its database.",
                "Add one of these dependencies (Spring Boot manages their versions): com.mysql:mysql-connector-j for "
                        + "a jdbc:mysql:// spring.datasource.url (MySQL, and MariaDB too), or "
                        + "org.mariadb.jdbc:mariadb-java-client for a jdbc:mariadb:// one.",
                failure);
    }

    /** The driver class the failure (or one of its causes) names, if one does. */
    private static @Nullable String missingDriver(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            for (String driver : DRIVERS) {
                if (message != null && message.contains(driver)) {
                    return driver;
                }
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return null;
    }

    private boolean queueEnabled() {
        return beanFactory instanceof ListableBeanFactory beans
                && beans.getBeanNamesForAnnotation(EnableDelayQueue.class).length > 0;
    }

    private boolean anyDriverPresent() {
        ClassLoader classLoader = beanFactory instanceof ConfigurableBeanFactory configurable
                ? configurable.getBeanClassLoader() : null;
        return DRIVERS.stream().anyMatch(driver -> ClassUtils.isPresent(driver, classLoader));
    }

    /** Before Spring Boot's analyzers, which would describe the failed {@code DataSource} without the remedy. */
    @Override
    public int getOrder() {
        return 0;
    }
}
