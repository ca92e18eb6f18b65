package io.github.delayqueue.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.api.TaskView.FailedAttempt;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What {@code error_history} holds: one JSON object a line,
 * {@code {"attempt":2,"failedAt":1750000000000,"error":"..."}}, oldest first. A failure's {@code UPDATE} appends its
 * line and keeps the last {@link TaskTable#MAX_ERROR_HISTORY} with {@code SUBSTRING_INDEX}
 * ({@link TaskSql#APPEND_ERROR}), which needs no JSON support of the server and works alike on MySQL and MariaDB; a
 * line never holds a line break, which JSON writes as {@code \n}.
 */
final class ErrorHistory {

    private static final JsonMapper JSON = JsonMapper.shared();

    private ErrorHistory() {
    }

    /** The line of one failure; the error already cut ({@link TaskTable#fitError}). */
    static String entry(int attempt, long failedAt, String error) {
        return JSON.writeValueAsString(JSON.createObjectNode().put("attempt", attempt).put("failedAt", failedAt)
            .put("error", error));
    }

    /** The column read back; a line that is not one of ours (edited by hand) is left out, never an error. */
    static List<FailedAttempt> read(@Nullable String column) {
        if (column == null || column.isEmpty()) {
            return List.of();
        }
        List<FailedAttempt> attempts = new ArrayList<>();
        for (String line : column.split("\n")) {
            try {
                JsonNode entry = JSON.readTree(line);
                JsonNode error = entry.path("error");
                if (entry.isObject() && error.isString()) {
                    attempts.add(new FailedAttempt(entry.path("attempt").asInt(0),
                            Instant.ofEpochMilli(entry.path("failedAt").asLong(0)), error.stringValue()));
                }
            }
            catch (JacksonException ex) {
                // not a line the queue wrote: skipped
            }
        }
        return attempts;
    }
}
