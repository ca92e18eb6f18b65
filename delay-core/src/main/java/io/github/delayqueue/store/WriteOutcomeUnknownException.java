package io.github.delayqueue.store;

import org.springframework.dao.DataAccessException;

/**
 * The connection failed while the database was committing a write that did not join the caller's transaction (an
 * insert, a cancel, a reschedule, a page of a bulk move): the tasks may or may not be stored, cancelled or moved. Only
 * a failure after the last write was sent is reported so; any earlier failure means nothing was stored or changed. A
 * store implementation throws it so that the queue tells its caller the outcome is unknown
 * ({@code OutcomeUnknownException}) instead of "nothing was stored", and never writes the rows a second time.
 */
public class WriteOutcomeUnknownException extends RuntimeException {

    /** @param cause the failure of the write or of its commit */
    public WriteOutcomeUnknownException(DataAccessException cause) {
        super(cause.getMessage(), cause);
    }
}
