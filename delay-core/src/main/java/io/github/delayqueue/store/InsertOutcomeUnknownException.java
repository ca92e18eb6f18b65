package io.github.delayqueue.store;

import org.springframework.dao.DataAccessException;

/**
 * The connection failed while the database was committing an insert (or a cancel or a reschedule that did not join
 * the caller's transaction): the tasks may or may not be stored, cancelled or moved. Only a failure after the last
 * write was sent is reported so; any earlier failure means nothing was stored or changed.
 */
public class InsertOutcomeUnknownException extends RuntimeException {

    public InsertOutcomeUnknownException(DataAccessException cause) {
        super(cause.getMessage(), cause);
    }
}
