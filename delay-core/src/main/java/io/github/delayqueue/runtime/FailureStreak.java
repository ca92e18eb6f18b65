package io.github.delayqueue.runtime;

import org.slf4j.Logger;

/**
 * A streak of failures of work that is tried again and again (a database that is down, say). It is logged once when
 * it starts, then at most once a minute with a count, and once when it ends, so an outage is visible without flooding
 * the log; and its length sets the wait before the next try ({@link #backoffMillis()}), which never grows past half
 * a second: whatever waits for the database or Redis must see it back within about a second of its first answer, and
 * a try while it is away costs little (a refused connection).
 */
final class FailureStreak {

    /** The longest wait between two tries. A try that fails at once is cheap; a late comeback is not. */
    static final long MAX_BACKOFF_MILLIS = 500;

    private static final long QUIET_MILLIS = 60_000;

    private final Logger log;

    private final String what;

    private long failures;

    private long lastLogged;

    FailureStreak(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    synchronized void failed(Throwable ex) {
        long now = System.currentTimeMillis();
        failures++;
        if (failures == 1 || now - lastLogged >= QUIET_MILLIS) {
            lastLogged = now;
            log.warn("{} failed ({} time(s) so far), will retry: {}", what, failures, ex.toString());
        }
    }

    synchronized void succeeded() {
        if (failures > 0) {
            log.info("{} works again after {} failure(s)", what, failures);
            failures = 0;
        }
    }

    /** How long to wait before the next try: doubles with each failure of the streak, from 100 ms up to 500 ms. */
    synchronized long backoffMillis() {
        return failures == 0 ? 0 : Math.min(MAX_BACKOFF_MILLIS, 100L << Math.min(failures - 1, 3));
    }

    /** Whether the last try failed. */
    synchronized boolean failing() {
        return failures > 0;
    }
}
