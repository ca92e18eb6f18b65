package io.github.delayqueue.api;

/**
 * The connection to the database failed while it was committing a change, so the change may or may not have been
 * applied. For {@code schedule}: the task may exist. Retry with a key ({@link TaskRequest.Builder#key}): while a task
 * with the same type and key is pending or running it is never stored twice, and the retry returns the one that
 * exists; {@link DelayQueue#find(String, String)} shows one that has already run.
 *
 * @since 0.1.0
 */
public class OutcomeUnknownException extends DelayQueueException {

    /**
     * Creates the exception.
     *
     * @param message what the queue was committing
     * @param cause the storage's own exception
     */
    public OutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
