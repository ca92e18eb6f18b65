package io.github.delayqueue.api;

/**
 * The queue could not do what was asked because its storage failed (the database is unreachable, for instance).
 * When {@code schedule} throws it, the task was not stored: the caller still owns it and may retry. The one
 * exception is its subclass {@link OutcomeUnknownException}, thrown when the database failed while committing.
 *
 * @since 0.1.0
 */
public class DelayQueueException extends RuntimeException {

    /**
     * Creates the exception.
     *
     * @param message what the queue was doing, and what failed
     * @param cause the storage's own exception
     */
    public DelayQueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
