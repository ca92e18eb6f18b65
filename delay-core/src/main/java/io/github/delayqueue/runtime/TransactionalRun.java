package io.github.delayqueue.runtime;

import java.lang.reflect.Type;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * One run of a handler that completes in its transaction ({@link HandlerSettings#transactional()}): the handler runs
 * in a transaction of the queue's DataSource, and its task is marked {@code SUCCEEDED} in that same transaction, the
 * last statement before the commit. The handler's database work and the completion are one commit: a crash after it
 * never runs the handler again, a crash before it leaves neither. Anything the handler throws rolls both back,
 * checked exceptions included (a failed attempt must leave no trace its retry would add to). A claim lost meanwhile
 * (its lease ran out, and another instance may be running the task) rolls back too, so two runs never both commit.
 * So does a run whose handler ran over its timeout (it was interrupted, and its attempt counts as failed), whatever
 * the handler did after the interrupt: the interrupt is cleared first, so that it does not disturb the rollback.
 * Passed to the {@code HandlerInvoker} in the handler's place, so an observation of the run spans the commit.
 */
final class TransactionalRun implements TaskHandler {

    private final TaskHandler handler;

    private final TransactionOperations transactions;

    private final TaskStore store;

    private final ClaimId claim;

    private final QueueClock clock;

    private final TaskRunner.Watch watch;

    TransactionalRun(TaskHandler handler, TransactionOperations transactions, TaskStore store, ClaimId claim,
            QueueClock clock, TaskRunner.Watch watch) {
        this.handler = handler;
        this.transactions = transactions;
        this.store = store;
        this.claim = claim;
        this.clock = clock;
        this.watch = watch;
    }

    @Override
    public void handle(@Nullable Object payload, TaskContext context) throws Exception {
        try {
            transactions.executeWithoutResult(status -> {
                try {
                    handler.handle(payload, context);
                }
                catch (Throwable ex) {
                    throw rollBack(ex);
                }
                if (watch.handlerReturned() != HeldTasks.Overrun.NONE) {
                    throw rolledBackAfterTimeout(null);
                }
                if (!store.succeedInCallerTransaction(claim, clock.now())) {
                    throw new ClaimLostException("Task " + claim.id() + " was not completed: its claim was lost "
                            + "before the handler's transaction committed (the lease ran out, and another instance "
                            + "may be running it), so the transaction was rolled back");
                }
            });
        }
        catch (CheckedFailure ex) {
            throw ex.checked;
        }
    }

    /** What rolls the transaction back after the handler threw {@code thrown}. */
    private RuntimeException rollBack(Throwable thrown) {
        if (watch.handlerReturned() != HeldTasks.Overrun.NONE) {
            return rolledBackAfterTimeout(thrown);
        }
        if (thrown instanceof RuntimeException unchecked) {
            return unchecked;
        }
        if (thrown instanceof Error error) {
            throw error;
        }
        return new CheckedFailure((Exception) thrown); // a transaction template rolls back on unchecked ones only
    }

    private static RolledBackAfterTimeout rolledBackAfterTimeout(@Nullable Throwable thrown) {
        Thread.interrupted(); // the interrupt was the handler's: the rollback's statements must not see it
        return new RolledBackAfterTimeout(thrown);
    }

    @Override
    public String type() {
        return handler.type();
    }

    @Override
    public HandlerSettings settings() {
        return handler.settings();
    }

    @Override
    public @Nullable Type payloadType() {
        return handler.payloadType();
    }

    @Override
    public String description() {
        return handler.description();
    }

    /** The handler's run was rolled back because its claim had been lost: the instance's failure, not the task's. */
    static final class ClaimLostException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        ClaimLostException(String message) {
            super(message);
        }
    }

    /** The handler ran over its timeout: its transaction was rolled back, whatever it did after the interrupt. */
    static final class RolledBackAfterTimeout extends RuntimeException {

        private static final long serialVersionUID = 1L;

        RolledBackAfterTimeout(@Nullable Throwable thrown) {
            super("the handler ran over its timeout; its transaction was rolled back", thrown);
        }
    }

    /** Carries a checked exception of the handler through the transaction template, which then rolls back. */
    private static final class CheckedFailure extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final transient Exception checked;

        CheckedFailure(Exception checked) {
            super(checked);
            this.checked = checked;
        }
    }
}
