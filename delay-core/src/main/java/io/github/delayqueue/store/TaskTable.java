package io.github.delayqueue.store;

import java.nio.charset.StandardCharsets;

/**
 * What the task table's columns hold ({@code db/delay/migration}), for the checks made before anything is written:
 * the request validation and the property validation read the limits here rather than from a store implementation.
 * The rules for the table's name are in {@link TableNames}.
 */
public final class TaskTable {

    /** Length of {@code task_type}. */
    public static final int MAX_TYPE_LENGTH = 128;

    /** Length of {@code task_key}. */
    public static final int MAX_KEY_LENGTH = 255;

    /** Length of {@code last_error}; longer messages are cut ({@link #fitError}). */
    public static final int MAX_ERROR_LENGTH = 2000;

    /**
     * Failed attempts whose errors {@code error_history} keeps, the latest ones, each cut as {@code last_error} is.
     * Ten holds every attempt of a task with the default three attempts, or with any setting up to ten, lease
     * recoveries included; a task that fails more often keeps its latest ten, which bounds what one row holds (ten
     * errors of at most {@value #MAX_ERROR_LENGTH} characters) and what each failure rewrites.
     */
    public static final int MAX_ERROR_HISTORY = 10;

    /**
     * Length of {@code trace_context}: a W3C {@code traceparent} takes 55 characters, which leaves room for a
     * {@code tracestate} and some baggage. Headers beyond it are left out, the {@code traceparent} never.
     */
    public static final int MAX_TRACE_CONTEXT_LENGTH = 1024;

    /** Largest payload the {@code MEDIUMTEXT} column holds, in bytes. */
    public static final long MAX_PAYLOAD_BYTES = 16L * 1024 * 1024 - 1;

    private TaskTable() {
    }

    /** UTF-8 size of a payload, as the column counts it. */
    public static long payloadBytes(String payload) {
        return payload.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * The error as {@code last_error} keeps it: cut to {@link #MAX_ERROR_LENGTH}, ending in "...". A {@link TaskStore}
     * of one's own cuts errors the same way (the store contract checks it).
     */
    public static String fitError(String error) {
        if (error.length() <= MAX_ERROR_LENGTH) {
            return error;
        }
        return error.substring(0, MAX_ERROR_LENGTH - 3) + "...";
    }
}
