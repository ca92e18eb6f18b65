package io.github.delayqueue.runtime;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Warns when a write of the queue ran inside a transaction it could not join (one of another DataSource or resource):
 * the write committed at once and stays if that transaction rolls back, which the caller most likely did not mean.
 * Once per transaction name (a {@code @Transactional} method's is its class and method), so a deliberate use logs one
 * line per place, not one per call. Not in a transaction's {@code afterCompletion} callbacks (an after-commit event
 * listener): that transaction is over, and a write there is meant to be on its own.
 */
final class UnjoinedTransactions {

    private static final Logger log = LoggerFactory.getLogger(DefaultDelayQueue.class);

    /** Names remembered at most; past that nothing more is logged, so a generated name cannot grow the set. */
    private static final int MAX_NAMES = 1_000;

    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** {@code what} did not join the caller's transaction; warns if there was one. */
    void committedOnItsOwn(Supplier<String> what) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive() || warned.size() >= MAX_NAMES) {
            return;
        }
        String name = TransactionSynchronizationManager.getCurrentTransactionName();
        if (warned.add(name == null ? "" : name)) {
            log.warn("{} ran inside transaction '{}', which is not a transaction of the queue's DataSource: it "
                    + "was committed at once and stays if that transaction rolls back. For it to commit or "
                    + "roll back with the transaction, run the transaction on the queue's DataSource (a "
                    + "DataSourceTransactionManager, JdbcTransactionManager or JpaTransactionManager of that "
                    + "DataSource); if it is meant to be independent, schedule it outside the transaction. Logged "
                    + "once per transaction name.", what.get(), name == null ? "(unnamed)" : name);
        }
    }
}
