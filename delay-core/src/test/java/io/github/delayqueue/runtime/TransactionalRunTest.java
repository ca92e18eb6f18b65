package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.api.DelayedHandler;
import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.handler.Backoff;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import io.github.delayqueue.test.SettableClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler that completes in its transaction, on the in-memory store (which writes a success at the commit of the
 * transaction it was made in) and a transaction manager that counts commits and rollbacks.
 */
class TransactionalRunTest {

    private static final long T0 = 1_750_000_000_000L;

    private final InMemoryTaskStore store = new InMemoryTaskStore();

    private final Transactions transactions = new Transactions();

    private final HandlerRegistry registry = new HandlerRegistry();

    private final AtomicBoolean ranInATransaction = new AtomicBoolean();

    private @Nullable Runnable duringTheHandler;

    TransactionalRunTest() {
        registry.registerAnnotated(new Handlers(), value -> value,
                () -> new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1)));
    }

    @Test
    void aSuccessIsWrittenByTheCommitOfTheHandlersTransaction() {
        ClaimedTask task = claim("in-tx");
        assertThat(runner(new TransactionTemplate(transactions)).run(task, () -> false))
            .isInstanceOf(Completion.Succeeded.class);
        assertThat(ranInATransaction).as("the handler ran in a transaction").isTrue();
        assertThat(transactions.commits).isOne();
        assertThat(store.find(task.id()).orElseThrow().status()).as("written at the commit, before the batch")
            .isEqualTo(TaskStatus.SUCCEEDED);
    }

    @Test
    void aCheckedExceptionRollsTheTransactionBackAndIsTheAttemptsError() {
        ClaimedTask task = claim("in-tx");
        duringTheHandler = () -> {
            throw new CheckedCarrier(new Checked());
        };
        assertThat(runner(new TransactionTemplate(transactions)).run(task, () -> false))
            .isInstanceOfSatisfying(Completion.Retry.class, retry -> {
                assertThat(retry.error()).contains(Checked.class.getName()).contains("refused");
                assertThat(retry.attempts()).isOne();
            });
        assertThat(transactions.rollbacks).isOne();
        assertThat(transactions.commits).isZero();
        assertThat(store.find(task.id()).orElseThrow().status()).isEqualTo(TaskStatus.RUNNING);
    }

    @Test
    void aClaimLostBeforeTheCommitRollsBackAndTheAttemptIsNotHeldAgainstTheTask() {
        ClaimedTask task = claim("in-tx");
        // another claim takes the task: here the claim is handed back, which ends it as surely
        duringTheHandler = () -> store.release(Map.of(task.claimId(), TaskStatus.QUEUED), T0);
        assertThat(runner(new TransactionTemplate(transactions)).run(task, () -> false))
            .isInstanceOfSatisfying(Completion.Retry.class, retry -> {
                assertThat(retry.error()).contains("was rolled back").contains("claim was lost");
                assertThat(retry.attempts()).isZero();
            });
        assertThat(transactions.rollbacks).isOne();
        assertThat(store.find(task.id()).orElseThrow().status()).isEqualTo(TaskStatus.QUEUED);
    }

    @Test
    void withoutTransactionsItRunsAsAnyOtherHandler() {
        ClaimedTask task = claim("in-tx");
        assertThat(runner(null).run(task, () -> false)).isInstanceOf(Completion.Succeeded.class);
        assertThat(ranInATransaction).isFalse();
        assertThat(store.find(task.id()).orElseThrow().status()).as("left to the result writer")
            .isEqualTo(TaskStatus.RUNNING);
    }

    @Test
    void aHandlerThatDoesNotSayItRunsOutsideATransaction() {
        ClaimedTask task = claim("plain");
        assertThat(runner(new TransactionTemplate(transactions)).run(task, () -> false))
            .isInstanceOf(Completion.Succeeded.class);
        assertThat(ranInATransaction).isFalse();
        assertThat(transactions.commits).isZero();
    }

    private ClaimedTask claim(String type) {
        store.insert(List.of(new NewTask(type, null, "null", T0, TaskStatus.QUEUED, null)), T0);
        return store.claimDue(TaskStatus.QUEUED, T0, 1, new Lease("me", T0 + 30_000, T0)).get(0);
    }

    private TaskRunner runner(@Nullable TransactionTemplate template) {
        return new TaskRunner(registry, new JacksonPayloadCodec(JsonMapper.builder().build()),
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(1))),
                Tiers.databaseOnly(), new QueueClock(SettableClock.atMillis(T0)), TaskEvents.NONE, "me",
                HandlerInvoker.DIRECT, store, template);
    }

    class Handlers {

        @DelayedHandler(type = "in-tx", transactional = true)
        void inTransaction(TaskContext context) throws Checked {
            run();
        }

        @DelayedHandler(type = "plain")
        void plain(TaskContext context) throws Checked {
            run();
        }

        private void run() throws Checked {
            ranInATransaction.set(TransactionSynchronizationManager.isActualTransactionActive());
            Runnable during = duringTheHandler;
            if (during != null) {
                try {
                    during.run();
                }
                catch (CheckedCarrier ex) {
                    throw ex.checked;
                }
            }
        }
    }

    /** A checked exception of the handler's. */
    static final class Checked extends Exception {

        private static final long serialVersionUID = 1L;

        Checked() {
            super("refused");
        }
    }

    private static final class CheckedCarrier extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final transient Checked checked;

        CheckedCarrier(Checked checked) {
            this.checked = checked;
        }
    }

    /** Transactions of no resource, counted. */
    private static final class Transactions extends AbstractPlatformTransactionManager {

        private static final long serialVersionUID = 1L;

        int commits;

        int rollbacks;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            commits++;
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            rollbacks++;
        }
    }
}
