package io.github.delayqueue.bench;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The library's statements as its jar has them: the constants and helpers of {@code TaskSql}, which is package-private
 * in the library, read by reflection (this module keeps no class in the library's packages). For tests only: they
 * hold {@link RawSql} and the statement shapes {@link SqlWatch} goes by to the library's SQL.
 */
final class LibrarySql {

    private static final String TASK_SQL = "io.github.delayqueue.store.TaskSql";

    private LibrarySql() {
    }

    /** The library's statement of that name. */
    static String statement(String name) {
        try {
            Field field = taskSql().getDeclaredField(name);
            field.setAccessible(true);
            return (String) field.get(null);
        }
        catch (NoSuchFieldException | IllegalAccessException ex) {
            throw new IllegalStateException("The library's " + TASK_SQL + " has no statement " + name, ex);
        }
    }

    static String placeholders(int count) {
        return helper("placeholders", count);
    }

    static String pairPlaceholders(int count) {
        return helper("pairPlaceholders", count);
    }

    static String valuesRows(int count) {
        return helper("valuesRows", count);
    }

    private static String helper(String name, int count) {
        try {
            Method method = taskSql().getDeclaredMethod(name, int.class);
            method.setAccessible(true);
            return (String) method.invoke(null, count);
        }
        catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException ex) {
            throw new IllegalStateException("The library's " + TASK_SQL + " has no " + name + "(int)", ex);
        }
    }

    private static Class<?> taskSql() {
        try {
            return Class.forName(TASK_SQL);
        }
        catch (ClassNotFoundException ex) {
            throw new IllegalStateException("The library has no " + TASK_SQL + ": where are its statements now?", ex);
        }
    }
}
