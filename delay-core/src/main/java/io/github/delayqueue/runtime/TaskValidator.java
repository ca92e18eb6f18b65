package io.github.delayqueue.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.store.TaskTable;
import org.jspecify.annotations.Nullable;

/**
 * Checks a request before anything is written and turns it into column values. Every rejection is an
 * {@link IllegalArgumentException} that names the field, the limit and what to do.
 */
final class TaskValidator {

    /** The latest due time accepted: the end of year 9999, as far as anyone should plan. */
    static final Instant MAX_DUE = Instant.parse("9999-12-31T23:59:59.999Z");

    private final long maxPayloadBytes;

    TaskValidator(long maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    void checkType(@Nullable String type) {
        if (type == null || type.isBlank()) {
            throw new IllegalArgumentException("task type must not be blank");
        }
        if (type.length() > TaskTable.MAX_TYPE_LENGTH) {
            throw new IllegalArgumentException("task type is " + type.length() + " characters long; the limit is "
                    + TaskTable.MAX_TYPE_LENGTH + ": '" + type.substring(0, 40) + "...'");
        }
        checkText("task type", type, false);
        checkNoTrailingSpace("task type", type, "remove the trailing spaces");
    }

    /** A request that changes the key's pending task must have a key. */
    void checkKeyMode(TaskRequest request) {
        if (request.keyMode() != TaskRequest.KeyMode.KEEP && request.key() == null) {
            throw new IllegalArgumentException("A " + request.keyMode().name().toLowerCase(Locale.ROOT)
                    + "() request needs a key: it changes the pending task of its type and key (TaskRequest.key)");
        }
    }

    /** The start of keys for a bulk operation: {@code null} or text that a key could start with. */
    void checkKeyPrefix(@Nullable String prefix) {
        if (prefix == null) {
            return;
        }
        if (prefix.length() > TaskTable.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key prefix is " + prefix.length() + " characters long; a key has at "
                    + "most " + TaskTable.MAX_KEY_LENGTH);
        }
        checkText("key prefix", prefix, false);
    }

    /** A shift of due times no due time can overflow with: at most about a thousand years either way. */
    long shiftMillis(Duration shift) {
        long limit = Duration.ofDays(365_000).toMillis();
        if (shift.abs().compareTo(Duration.ofMillis(limit)) > 0) {
            throw new IllegalArgumentException("shift " + shift + " is too large; at most " + Duration.ofMillis(limit)
                    + " either way");
        }
        return shift.toMillis();
    }

    void checkKey(@Nullable String key) {
        if (key == null) {
            return;
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("task key must not be empty; pass null for a task without a key");
        }
        if (key.length() > TaskTable.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("task key is " + key.length() + " characters long; the limit is "
                    + TaskTable.MAX_KEY_LENGTH + "; use a shorter business key or a hash of it");
        }
        checkText("task key", key, false);
        checkNoTrailingSpace("task key", key, "strip the key, or encode it (hex, Base64) if the spaces matter");
    }

    void checkMaxAttempts(@Nullable Integer maxAttempts) {
        if (maxAttempts != null && maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
    }

    /** Checks the encoded payload against {@code delay.payload.max-size} and for text the database would alter. */
    void checkPayload(String type, String json) {
        long bytes = TaskTable.payloadBytes(json);
        if (bytes > maxPayloadBytes) {
            throw new IllegalArgumentException("payload of task type '" + type + "' is " + bytes
                    + " bytes as JSON; the limit (delay.payload.max-size) is " + maxPayloadBytes
                    + " bytes: store the data elsewhere and schedule a reference to it, or raise the limit");
        }
        checkText("payload of task type '" + type + "'", json, true); // JSON escapes control characters
    }

    /** The due time in epoch milliseconds, due instants taken as they are; a past time means now. */
    long dueAt(TaskRequest request, long now) {
        if (request.dueAt() != null) {
            return dueAt(request.dueAt(), now);
        }
        Duration delay = request.delay();
        return delay == null ? now : dueAfter(delay, now);
    }

    /**
     * The due time on the queue's clock in epoch milliseconds; a past time means now. {@code now} should be the
     * clock's {@link QueueClock#latestNow()}, and a due instant, read on the application's clock, is converted with
     * {@link QueueClock#toQueueMillis(Instant)}: either way the task never falls due early.
     */
    long dueAt(TaskRequest request, long now, QueueClock clock) {
        if (request.dueAt() != null) {
            return dueAt(request.dueAt(), now, clock);
        }
        Duration delay = request.delay();
        return delay == null ? now : dueAfter(delay, now);
    }

    long dueAt(@Nullable Instant dueAt, long now) {
        Instant due = checkDueAt(dueAt);
        if (due.getEpochSecond() < 0) {
            return now; // before 1970: in the past, so due now
        }
        return Math.max(due.toEpochMilli(), now);
    }

    /** {@link #dueAt(TaskRequest, long, QueueClock)} for a due instant alone. */
    long dueAt(@Nullable Instant dueAt, long now, QueueClock clock) {
        Instant due = checkDueAt(dueAt);
        if (due.getEpochSecond() < 0) {
            return now; // before 1970: in the past, so due now
        }
        return Math.max(clock.toQueueMillis(due), now);
    }

    private static Instant checkDueAt(@Nullable Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("due time must not be null");
        }
        if (dueAt.isAfter(MAX_DUE)) {
            throw new IllegalArgumentException("due time " + dueAt + " is after the latest accepted, " + MAX_DUE);
        }
        return dueAt;
    }

    long dueAfter(@Nullable Duration delay, long now) {
        if (delay == null) {
            throw new IllegalArgumentException("delay must not be null");
        }
        if (delay.isNegative()) {
            return now;
        }
        long maxMillis = MAX_DUE.toEpochMilli() - now;
        if (delay.compareTo(Duration.ofMillis(maxMillis)) > 0) {
            throw new IllegalArgumentException("delay " + delay + " puts the due time after the latest accepted, "
                    + MAX_DUE);
        }
        return now + delay.toMillis();
    }

    /**
     * The type and key columns use a PAD SPACE collation ({@code utf8mb4_bin} on MySQL 8 and MariaDB): the database
     * compares them as if trailing spaces were not there, so {@code "k "} would find, cancel or collide with the task
     * of {@code "k"}, while Java holds them apart.
     */
    private static void checkNoTrailingSpace(String what, String text, String advice) {
        if (text.endsWith(" ")) {
            throw new IllegalArgumentException(what + " '" + text + "' ends with a space: the database compares "
                    + what + "s ignoring trailing spaces, so it would be the same " + what + " as '"
                    + text.replaceAll(" +$", "") + "'; " + advice);
        }
    }

    /**
     * Rejects control characters in names and unpaired surrogates anywhere: the database would store the latter
     * as '?', silently changing the task.
     */
    private static void checkText(String what, String text, boolean controlAllowed) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new IllegalArgumentException(what + " contains an unpaired UTF-16 surrogate at index " + i
                        + ", which is not valid Unicode and cannot be stored unchanged");
            }
            if (Character.isLowSurrogate(c)) {
                throw new IllegalArgumentException(what + " contains an unpaired UTF-16 surrogate at index " + i
                        + ", which is not valid Unicode and cannot be stored unchanged");
            }
            if (!controlAllowed && Character.isISOControl(c)) {
                throw new IllegalArgumentException(what + " contains control character U+"
                        + String.format("%04X", (int) c) + " at index " + i);
            }
        }
    }
}
