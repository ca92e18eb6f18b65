package io.github.delayqueue.sample.embedded;

import java.time.Duration;

/**
 * The embedded MariaDB did not start. {@link EmbeddedDatabaseFailureAnalyzer} turns it into Spring Boot's "application
 * failed to start" report, whose last words are what to do.
 */
final class EmbeddedDatabaseStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean timedOut;

    private final Duration startTimeout;

    EmbeddedDatabaseStartException(String reason, boolean timedOut, Duration startTimeout, Throwable cause) {
        super("Could not start the embedded MariaDB (" + reason + "); set spring.datasource.url to use a MySQL or "
                + "MariaDB of your own", cause);
        this.timedOut = timedOut;
        this.startTimeout = startTimeout;
    }

    /** Whether the server was still not ready for connections when {@link #startTimeout()} ran out. */
    boolean timedOut() {
        return timedOut;
    }

    Duration startTimeout() {
        return startTimeout;
    }
}
