package io.github.delayqueue.store;

import org.springframework.dao.DataAccessException;

/**
 * The connection failed while the database was committing an insert (or a cancel the store ran in a transaction of
 * its own): the tasks may or may not be stored, or cancelled. Only a failure after the last write was sent is
 * reported so; any earlier failure means nothing was stored.
 */
public class InsertOutcomeUnknownException extends RuntimeException {

    public InsertOutcomeUnknownException(DataAccessException cause) {
        super(cause.getMessage(), cause);
    }
}
