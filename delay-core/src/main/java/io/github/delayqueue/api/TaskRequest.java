package io.github.delayqueue.api;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One task to schedule: a type, a payload, when it is due (a delay from now or an instant), and optionally a
 * business key that makes scheduling idempotent per type and a number of attempts for this task alone.
 *
 * <pre>{@code
 * TaskRequest.of("order.cancel", new OrderRef(42)).delay(Duration.ofMinutes(30)).key("42").build();
 * }</pre>
 */
public final class TaskRequest {

    private final String type;

    private final @Nullable Object payload;

    private final @Nullable Duration delay;

    private final @Nullable Instant dueAt;

    private final @Nullable String key;

    private final @Nullable Integer maxAttempts;

    private TaskRequest(Builder builder) {
        this.type = builder.type;
        this.payload = builder.payload;
        this.delay = builder.delay;
        this.dueAt = builder.dueAt;
        this.key = builder.key;
        this.maxAttempts = builder.maxAttempts;
    }

    /** Starts a request for a task of {@code type} carrying {@code payload} ({@code null} is stored as JSON null). */
    public static Builder of(@Nullable String type, @Nullable Object payload) {
        return new Builder(type, payload);
    }

    public String type() {
        return type;
    }

    public @Nullable Object payload() {
        return payload;
    }

    /** The delay from the moment of scheduling, when the request was given one. */
    public @Nullable Duration delay() {
        return delay;
    }

    /** The due instant, when the request was given one. */
    public @Nullable Instant dueAt() {
        return dueAt;
    }

    public @Nullable String key() {
        return key;
    }

    public @Nullable Integer maxAttempts() {
        return maxAttempts;
    }

    @Override
    public String toString() {
        return "TaskRequest[type=" + type + ", key=" + key + ", delay=" + delay + ", dueAt=" + dueAt + "]";
    }

    /** Builds a {@link TaskRequest}; without a delay or due time the task is due at once. */
    public static final class Builder {

        private final String type;

        private final @Nullable Object payload;

        private @Nullable Duration delay;

        private @Nullable Instant dueAt;

        private @Nullable String key;

        private @Nullable Integer maxAttempts;

        private Builder(@Nullable String type, @Nullable Object payload) {
            this.type = required(type, "type");
            this.payload = payload;
        }

        /** Due this long after scheduling; replaces a due time set before. */
        public Builder delay(@Nullable Duration delay) {
            this.delay = required(delay, "delay");
            this.dueAt = null;
            return this;
        }

        /**
         * Due at this instant of the application's clock (the queue moves it to the database clock, never earlier);
         * replaces a delay set before. A past instant means now.
         */
        public Builder dueAt(@Nullable Instant dueAt) {
            this.dueAt = required(dueAt, "dueAt");
            this.delay = null;
            return this;
        }

        /**
         * A business key, unique per type: scheduling the same type and key again returns the first task. It must
         * not end with a space: the database compares keys ignoring trailing spaces.
         */
        public Builder key(@Nullable String key) {
            this.key = key;
            return this;
        }

        /** Attempts allowed for this task, overriding its handler's setting; at least 1. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        private static <T> T required(@Nullable T value, String name) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must not be null");
            }
            return value;
        }

        public TaskRequest build() {
            return new TaskRequest(this);
        }
    }
}
