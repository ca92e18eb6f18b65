package io.github.delayqueue.index;

/** The time index could not be reached; the database still holds every task, so nothing is lost. */
public class IndexUnavailableException extends RuntimeException {

    public IndexUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
