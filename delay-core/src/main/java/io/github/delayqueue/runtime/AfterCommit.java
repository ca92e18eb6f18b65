package io.github.delayqueue.runtime;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs what follows a write (indexing, the wake-up, the events) once the write is committed: after the caller's
 * transaction commits when the write joined it, at once when it did not (it committed by itself). A task rolled back
 * with its transaction must never reach the index or wake anyone; a task committed at once must not wait for a
 * commit that does not concern it (a transaction of another DataSource, a {@code SUPPORTS} scope that rolls back).
 */
final class AfterCommit {

    private AfterCommit() {
    }

    /** @param joined whether the write went with the caller's transaction ({@code TaskStore.joinsCallerTransaction}) */
    static void run(boolean joined, Runnable work) {
        if (joined && TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    work.run();
                }
            });
        }
        else {
            work.run();
        }
    }

    /** For a write that joins whatever transaction is active (the inspector's re-run of a dead letter). */
    static void run(Runnable work) {
        run(TransactionSynchronizationManager.isActualTransactionActive(), work);
    }
}
