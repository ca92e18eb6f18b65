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
