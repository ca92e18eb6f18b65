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
 *
 * @since 0.1.0
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

    /**
     * Starts a request for a task of {@code type} carrying {@code payload}.
     *
     * @param type the task type, which names its {@link DelayedHandler}
     * @param payload what the handler receives, stored as JSON; {@code null} is stored as JSON null
     * @return a builder, due at once until given a delay or a due time
     * @throws IllegalArgumentException when {@code type} is {@code null}
     */
    public static Builder of(@Nullable String type, @Nullable Object payload) {
        return new Builder(type, payload);
    }

    /**
     * The task type.
     *
     * @return the type, which names the task's {@link DelayedHandler}
     */
    public String type() {
        return type;
    }

    /**
     * The payload, as given; it is encoded as JSON when the task is scheduled.
     *
     * @return the payload, or {@code null} for none
     */
    public @Nullable Object payload() {
        return payload;
    }

    /**
     * The delay from the moment of scheduling, when the request was given one.
     *
     * @return the delay, or {@code null} when the request has a due time or is due at once
     */
    public @Nullable Duration delay() {
        return delay;
    }

    /**
     * The due instant, when the request was given one.
     *
     * @return the due instant on the application's clock, or {@code null} when the request has a delay or is due at
     *     once
     */
    public @Nullable Instant dueAt() {
        return dueAt;
    }

    /**
     * The business key, unique per type.
     *
     * @return the key, or {@code null} for a task without one
     */
    public @Nullable String key() {
        return key;
    }

    /**
     * The attempts allowed for this task alone.
     *
     * @return the attempts, or {@code null} when the handler's setting applies
     */
    public @Nullable Integer maxAttempts() {
        return maxAttempts;
    }

    @Override
    public String toString() {
        return "TaskRequest[type=" + type + ", key=" + key + ", delay=" + delay + ", dueAt=" + dueAt + "]";
    }

    /**
     * Builds a {@link TaskRequest}; without a delay or due time the task is due at once.
     *
     * @since 0.1.0
     */
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

        /**
         * Due this long after scheduling; replaces a due time set before.
         *
         * @param delay the delay from the moment of scheduling; zero or negative means now
         * @return this builder
         * @throws IllegalArgumentException when {@code delay} is {@code null}
         */
        public Builder delay(@Nullable Duration delay) {
            this.delay = required(delay, "delay");
            this.dueAt = null;
            return this;
        }

        /**
         * Due at this instant of the application's clock (the queue moves it to the database clock, never earlier);
         * replaces a delay set before. A past instant means now.
         *
         * @param dueAt the due instant, on the application's clock
         * @return this builder
         * @throws IllegalArgumentException when {@code dueAt} is {@code null}
         */
        public Builder dueAt(@Nullable Instant dueAt) {
            this.dueAt = required(dueAt, "dueAt");
            this.delay = null;
            return this;
        }

        /**
         * A business key, unique per type: scheduling the same type and key again returns the first task. It must
         * not end with a space: the database compares keys ignoring trailing spaces.
         *
         * @param key the key, or {@code null} for none
         * @return this builder
         */
        public Builder key(@Nullable String key) {
            this.key = key;
            return this;
        }

        /**
         * Attempts allowed for this task, overriding its handler's setting; at least 1, checked when the task is
         * scheduled.
         *
         * @param maxAttempts the attempts allowed in all
         * @return this builder
         */
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

        /**
         * The request as built so far; the queue checks it when it is scheduled.
         *
         * @return a new request
         */
        public TaskRequest build() {
            return new TaskRequest(this);
        }
    }
}
