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

    private final KeyMode keyMode;

    private final @Nullable Duration maxDelay;

    private TaskRequest(Builder builder) {
        this.type = builder.type;
        this.payload = builder.payload;
        this.delay = builder.delay;
        this.dueAt = builder.dueAt;
        this.key = builder.key;
        this.maxAttempts = builder.maxAttempts;
        this.keyMode = builder.keyMode;
        this.maxDelay = builder.maxDelay;
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

    /**
     * What scheduling does when its key's task is pending.
     *
     * @return {@link KeyMode#KEEP} unless the builder was told otherwise
     */
    public KeyMode keyMode() {
        return keyMode;
    }

    /**
     * For {@link KeyMode#DEBOUNCE}: how long after its first request the key's task runs at the latest, however
     * often it is pushed out.
     *
     * @return the limit, or {@code null} for none
     */
    public @Nullable Duration maxDelay() {
        return maxDelay;
    }

    @Override
    public String toString() {
        return "TaskRequest[type=" + type + ", key=" + key + ", delay=" + delay + ", dueAt=" + dueAt
                + (keyMode == KeyMode.KEEP ? "" : ", keyMode=" + keyMode) + "]";
    }

    /**
     * What a keyed request does when its type and key already name a live task (pending or running). A finished
     * task holds no key: a request for its key always creates a new task. A running task is never changed: every
     * mode but {@link #RUN_ONCE_MORE} keeps it and answers {@link Scheduled.Outcome#KEPT}.
     *
     * @since 0.1.0
     */
    public enum KeyMode {

        /** The pending task stays as it is ({@link Scheduled.Outcome#KEPT}): scheduling is idempotent per key. */
        KEEP,

        /**
         * The pending task takes this request's payload, due time and attempts ({@link Scheduled.Outcome#REPLACED}):
         * "remind the user at the time of their latest choice".
         */
        REPLACE,

        /**
         * The pending task takes this request's payload and attempts, and its due time moves out to this request's
         * if that is later, never earlier, and never past its first request plus {@link #maxDelay()}
         * ({@link Scheduled.Outcome#EXTENDED}): "cancel the cart 30 minutes after its last change".
         */
        DEBOUNCE,

        /**
         * A pending task is kept (it has not run yet, so it covers this request); a running one gets exactly one
         * follow-up, a task in {@link TaskStatus#WAITING} that becomes pending when the running one ends and runs at
         * this request's due time, or at once if that has passed ({@link Scheduled.Outcome#QUEUED_AFTER_RUNNING}).
         * Further requests while it waits fold into it: "recompute the report once more after the edits made while
         * it was being computed". The key's tasks never run two at once.
         */
        RUN_ONCE_MORE
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

        private KeyMode keyMode = KeyMode.KEEP;

        private @Nullable Duration maxDelay;

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
         * A business key, unique per type among live tasks: while the key's task is pending or running, scheduling
         * the same type and key again returns that task (and changes it as {@link #replace()} or {@link #debounce()}
         * say); once it has finished, the key is free for a new task. It must not end with a space: the database
         * compares keys ignoring trailing spaces.
         *
         * @param key the key, or {@code null} for none
         * @return this builder
         */
        public Builder key(@Nullable String key) {
            this.key = key;
            return this;
        }

        /**
         * When the key's task is pending, it takes this request's payload, due time and attempts instead of staying
         * as it is ({@link KeyMode#REPLACE}). Needs a {@link #key}.
         *
         * @return this builder
         */
        public Builder replace() {
            this.keyMode = KeyMode.REPLACE;
            this.maxDelay = null;
            return this;
        }

        /**
         * When the key's task is pending, it takes this request's payload and attempts, and its due time moves out to
         * this request's if that is later ({@link KeyMode#DEBOUNCE}). Needs a {@link #key}.
         *
         * @return this builder
         */
        public Builder debounce() {
            this.keyMode = KeyMode.DEBOUNCE;
            this.maxDelay = null;
            return this;
        }

        /**
         * As {@link #debounce()}, but the task runs no later than {@code maxDelay} after the request that created
         * it, however often it is pushed out: a cart that keeps changing is still cancelled in time.
         *
         * @param maxDelay the longest time from the key's first request to the run; positive
         * @return this builder
         * @throws IllegalArgumentException when {@code maxDelay} is {@code null}, zero or negative
         */
        public Builder debounce(@Nullable Duration maxDelay) {
            Duration limit = required(maxDelay, "maxDelay");
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("maxDelay must be positive, not " + limit);
            }
            this.keyMode = KeyMode.DEBOUNCE;
            this.maxDelay = limit;
            return this;
        }

        /**
         * When the key's task is running, one follow-up runs after it ends ({@link KeyMode#RUN_ONCE_MORE}); when it
         * is pending, it is kept. Needs a {@link #key}.
         *
         * @return this builder
         */
        public Builder runOnceMore() {
            this.keyMode = KeyMode.RUN_ONCE_MORE;
            this.maxDelay = null;
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
