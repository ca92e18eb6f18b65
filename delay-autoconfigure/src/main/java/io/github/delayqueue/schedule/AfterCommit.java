package io.github.delayqueue.schedule;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs work once the caller's transaction has committed, or at once when there is none: a task rolled back with
 * its transaction must never reach the index or wake anyone.
 */
final class AfterCommit {

    private AfterCommit() {
    }

    static void run(Runnable work) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
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
}
