package io.github.delayqueue.store;

import org.jspecify.annotations.Nullable;

/**
 * A task this instance has just won: moved to {@code RUNNING} with its owner and lease. The attempt is counted only
 * when its handler starts ({@link TaskStore#markStarted}).
 *
 * @param id the task id
 * @param type the handler type
 * @param key the business key, or {@code null}
 * @param payload the payload as JSON text
 * @param dueAt due time in epoch milliseconds
 * @param attempt the number this attempt gets when it starts, starting at 1
 * @param maxAttempts attempts allowed for this task alone, or {@code null} for the handler's setting
 * @param createdAt when it was scheduled, epoch milliseconds
 * @param claim the number of this claim (see {@link ClaimId})
 * @param traceContext the trace context stored with the task when it was scheduled ({@link NewTask#traceContext()}),
 *     or {@code null}
 */
public record ClaimedTask(long id, String type, @Nullable String key, String payload, long dueAt, int attempt,
        @Nullable Integer maxAttempts, long createdAt, long claim, @Nullable String traceContext) {

    /** A task scheduled outside a trace. */
    public ClaimedTask(long id, String type, @Nullable String key, String payload, long dueAt, int attempt,
            @Nullable Integer maxAttempts, long createdAt, long claim) {
        this(id, type, key, payload, dueAt, attempt, maxAttempts, createdAt, claim, null);
    }

    public ClaimId claimId() {
        return new ClaimId(id, claim);
    }
}
