package io.github.delayqueue.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import io.github.delayqueue.api.TaskContext;
import io.github.delayqueue.handler.HandlerInvoker;
import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.HandlerSettings;
import io.github.delayqueue.handler.PayloadBindingException;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.handler.RetryPolicy;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionOperations;

/**
 * Runs one claimed task on the calling worker thread and decides how it ended: success, a retry at the next
 * backoff in the tier its new due time belongs to, or the dead letter (out of attempts, payload that does not bind,
 * or no handler for the type). Nothing thrown while running a task, by the handler, a listener, the payload codec or
 * this class, {@link Error}s included, escapes to the worker thread: every run ends in a completion, so no task is
 * left {@code RUNNING} by a failure around its handler. Every failed attempt is logged ({@link FailureLog}) and
 * reported to the listeners ({@link TaskEvents#attemptFailed}), so a failure is never only a {@code last_error}.
 * <p>
 * A handler that runs over its timeout is interrupted by the pool's {@link HandlerTimeouts}; its attempt counts as
 * failed whatever it does next ({@link TaskEvents.Failure#TIMEOUT}). One that ignores the interrupt has its failure
 * written by the timeout check ({@link #ignoredInterrupt}), and its run, when it returns at last, writes nothing.
 */
final class TaskRunner {

    private static final Logger log = LoggerFactory.getLogger(TaskRunner.class);

    /** What the pool tells a run about its handler while it runs: a lost lease, a timeout. */
    interface Watch {

        /** Whether the pool interrupted the handler because the task's lease could not be renewed. */
        boolean leaseLost();

        /** The handler's timeout, {@code null} for none. */
        @Nullable Duration timeout();

        /** Called once the handler returned or threw: no timeout fires after it. What the timeout did before. */
        HeldTasks.Overrun handlerReturned();
    }

    private final HandlerRegistry registry;

    private final PayloadCodec codec;

    private final RetryPolicy retryPolicy;

    private final Tiers tiers;

    private final QueueClock clock;

    private final TaskEvents events;

    private final String instanceId;

    private final HandlerInvoker invoker;

    private final FailureLog failures;

    private final TaskStore store;

    /** Transactions for handlers that complete in theirs; {@code null}: they run as any other. */
    private final @Nullable TransactionOperations transactions;

    private final PayloadUpcasters upcasters;

    TaskRunner(HandlerRegistry registry, PayloadCodec codec, RetryPolicy retryPolicy, Tiers tiers,
            QueueClock clock, TaskEvents events, String instanceId, HandlerInvoker invoker, TaskStore store,
            @Nullable TransactionOperations transactions) {
        this(registry, codec, retryPolicy, tiers, clock, events, instanceId, invoker, store, transactions,
                PayloadUpcasters.NONE);
    }

    TaskRunner(HandlerRegistry registry, PayloadCodec codec, RetryPolicy retryPolicy, Tiers tiers,
            QueueClock clock, TaskEvents events, String instanceId, HandlerInvoker invoker, TaskStore store,
            @Nullable TransactionOperations transactions, PayloadUpcasters upcasters) {
        this.upcasters = upcasters;
        this.registry = registry;
        this.codec = codec;
        this.retryPolicy = retryPolicy;
        this.tiers = tiers;
        this.clock = clock;
        this.events = events;
        this.instanceId = instanceId;
        this.invoker = invoker;
        this.store = store;
        this.transactions = transactions;
        this.failures = new FailureLog(LoggerFactory.getLogger(TaskRunner.class), clock::now);
    }

    /** Runs the task without a timeout; {@code leaseLost} as {@link Watch#leaseLost()}. */
    Completion run(ClaimedTask task, BooleanSupplier leaseLost) {
        Completion completion = run(task, new Watch() {
            @Override
            public boolean leaseLost() {
                return leaseLost.getAsBoolean();
            }

            @Override
            public @Nullable Duration timeout() {
                return null;
            }

            @Override
            public HeldTasks.Overrun handlerReturned() {
                return HeldTasks.Overrun.NONE;
            }
        });
        return Objects.requireNonNull(completion, "without a timeout, every run ends in a completion");
    }

    /**
     * Runs the task; {@code watch} tells, after the handler returned, whether the pool interrupted it because the
     * task's lease could not be renewed (the instance's failure, not the handler's: the task goes back, due now,
     * without being dead-lettered on its last attempt) or because it ran over its timeout (a failed attempt).
     * {@code null} when there is nothing to write: the handler ran over its timeout, ignored the interrupt, and its
     * failure was written without it.
     */
    @Nullable Completion run(ClaimedTask task, Watch watch) {
        try {
            return runHandler(task, watch);
        }
        catch (Throwable ex) { // around the handler, not in it: still an attempt that ran, and it must end
            Completion completion = unexpected(task, ex);
            report(task, TaskEvents.Failure.INTERNAL, ex);
            return completion;
        }
    }

    private @Nullable Completion runHandler(ClaimedTask task, Watch watch) {
        // what the handler sees, and what listeners hear of the task: never the stored payload
        TaskContext context = context(task);
        TaskHandler handler = registry.find(task.type());
        if (handler == null) {
            String error = "No @DelayedHandler for task type '" + task.type() + "' on instance " + instanceId
                    + "; deploy a handler for it and re-run the task";
            events.finished(context, TaskEvents.Outcome.FAILED, 0);
            events.attemptFailed(context, TaskEvents.Failure.NO_HANDLER, null);
            failures.rejected(task, error, null);
            return new Completion.Failed(task.id(), task.claim(), task.attempt(), error);
        }
        Object payload;
        try {
            payload = bind(task, handler);
        }
        catch (PayloadBindingException ex) { // the payload's class changed, or it was never of the handler's type
            String error = "Payload of task " + task.id() + " (type '" + task.type() + "') does not fit "
                    + handler.description() + ": " + ex.getMessage() + "; the task is PARKED: register a payload "
                    + "upcaster for the type (or fix the handler's parameter type), deploy it, then re-run the task "
                    + "(DelayQueueRuntime.rerun or rerunParked, or the delayqueue endpoint)";
            events.finished(context, TaskEvents.Outcome.PARKED, 0);
            events.attemptFailed(context, TaskEvents.Failure.BINDING, ex);
            failures.parked(task, error);
            return new Completion.Parked(task.id(), task.claim(), task.attempt(), error);
        }
        catch (RuntimeException ex) { // whatever else a custom codec throws: a bug, not a payload to adapt
            String error = "Payload of task " + task.id() + " (type '" + task.type() + "') does not fit "
                    + handler.description() + ": " + describe(ex)
                    + "; fix the payload or the handler's parameter type and re-run the task";
            events.finished(context, TaskEvents.Outcome.FAILED, 0);
            events.attemptFailed(context, TaskEvents.Failure.BINDING, ex);
            failures.rejected(task, error, ex);
            return new Completion.Failed(task.id(), task.claim(), task.attempt(), error);
        }
        events.started(context, clock.now() - task.dueAt());
        long started = System.nanoTime();
        Throwable failure = null;
        HeldTasks.Overrun overrun;
        try {
            invoker.invoke(inTransactionIfDeclared(handler, task, watch), payload, context);
        }
        catch (Throwable ex) { // an Error in one handler must not cost the pool a thread
            failure = ex;
        }
        finally {
            overrun = watch.handlerReturned(); // past this no timeout interrupts the thread
            Thread.interrupted(); // a handler that interrupted itself leaves the worker thread clean
        }
        long duration = System.nanoTime() - started;
        if (overrun == HeldTasks.Overrun.FAILURE_WRITTEN) {
            log.info("The handler of task {} (type '{}') returned after {} ms, long after its timeout of {}; its "
                    + "failure was written when it ignored its interrupt, so what it returned is dropped, and its "
                    + "thread runs tasks again", task.id(), task.type(), duration / 1_000_000, watch.timeout());
            return null;
        }
        if (failure == null && overrun == HeldTasks.Overrun.NONE) {
            events.finished(context, TaskEvents.Outcome.SUCCESS, duration);
            return new Completion.Succeeded(task.id(), task.claim());
        }
        if (overrun == HeldTasks.Overrun.INTERRUPTED && !watch.leaseLost()) {
            return failed(task, context, handler.settings(), overran(task, watch.timeout(), failure), duration,
                    TaskEvents.Failure.TIMEOUT);
        }
        if (failure == null) { // returned after both its timeout and a lost lease: the lease comes first
            failure = overran(task, watch.timeout(), null);
        }
        if (watch.leaseLost() || failure instanceof TransactionalRun.ClaimLostException) {
            // the instance's failure, not the handler's: the attempt is not held against the task
            long now = clock.now();
            String error = failure instanceof TransactionalRun.ClaimLostException
                    ? "Attempt " + task.attempt() + " on instance " + instanceId + " was rolled back: "
                            + failure.getMessage()
                    : "Attempt " + task.attempt() + " was interrupted because instance " + instanceId
                            + " could not renew its lease: " + describe(failure);
            events.finished(context, TaskEvents.Outcome.RETRY, duration);
            events.attemptFailed(context, TaskEvents.Failure.LEASE_LOST, failure);
            failures.interrupted(task, error);
            return new Completion.Retry(task.id(), task.claim(), tiers.statusFor(now, now), now, task.attempt() - 1,
                    error);
        }
        return failed(task, context, handler.settings(), failure, duration, TaskEvents.Failure.HANDLER);
    }

    /** What a handler that ran over its timeout and was interrupted failed with: {@code thrown}, if anything. */
    private static TimeoutException overran(ClaimedTask task, @Nullable Duration timeout, @Nullable Throwable thrown) {
        String then;
        if (thrown instanceof TransactionalRun.RolledBackAfterTimeout rolledBack) {
            Throwable cause = rolledBack.getCause();
            then = "; its transaction was rolled back" + (cause == null ? "" : " (it threw " + describe(cause) + ")");
        }
        else {
            then = thrown == null ? "; it returned after the interrupt" : "; it threw " + describe(thrown);
        }
        TimeoutException failure = new TimeoutException("Handler of type '" + task.type() + "' ran over its timeout of "
                + timeout + " and was interrupted" + then);
        failure.initCause(thrown);
        return failure;
    }

    /**
     * The timeout check's part for a handler that ran over its timeout and had not returned {@code grace} after its
     * interrupt: the attempt's failure, written now without the handler, which still runs on {@code thread}. It
     * follows the retry policy, and the listeners hear of it ({@link TaskEvents#timeoutIgnored} as well).
     */
    Completion ignoredInterrupt(ClaimedTask task, @Nullable Duration timeout, Duration grace, String thread,
            long durationNanos) {
        TimeoutException failure = new TimeoutException("Handler of type '" + task.type() + "' ran over its timeout of "
                + timeout + " and had not returned " + grace.toMillis() + " ms after its interrupt (thread " + thread
                + " still runs it and runs no other task until it returns)");
        try {
            TaskContext context = context(task);
            TaskHandler handler = registry.find(task.type());
            events.timeoutIgnored(context, thread);
            return failed(task, context, handler == null ? null : handler.settings(), failure, durationNanos,
                    TaskEvents.Failure.TIMEOUT);
        }
        catch (Throwable ex) { // around the handler, not in it: the attempt still ended, and must be written
            failure.addSuppressed(ex);
            Completion completion = unexpected(task, failure);
            report(task, TaskEvents.Failure.INTERNAL, ex);
            return completion;
        }
    }

    /**
     * A handler that completes in its transaction runs in one; its success is then committed already, and the
     * completion the result writer sends after it changes nothing (the row is no longer {@code RUNNING}).
     */
    private TaskHandler inTransactionIfDeclared(TaskHandler handler, ClaimedTask task, Watch watch) {
        TransactionOperations tx = transactions;
        return tx != null && handler.settings().transactional()
                ? new TransactionalRun(handler, tx, store, task.claimId(), clock, watch) : handler;
    }

    /** Something around the handler failed (a listener, the codec): retried at the next backoff like a failure. */
    private Completion unexpected(ClaimedTask task, Throwable ex) {
        String error = "Running the task failed outside its handler: " + describe(ex);
        try {
            TaskHandler handler = registry.find(task.type());
            int maxAttempts = retryPolicy.maxAttempts(task.maxAttempts(), handler == null ? null : handler.settings());
            if (task.attempt() >= maxAttempts) {
                failures.failedOutsideHandler(task, null, ex);
                return new Completion.Failed(task.id(), task.claim(), task.attempt(), error);
            }
            long now = clock.now();
            long dueAt = now + retryPolicy.backoffMillis(task.attempt(), handler == null ? null : handler.settings());
            failures.failedOutsideHandler(task, dueAt, ex);
            return new Completion.Retry(task.id(), task.claim(), tiers.statusFor(dueAt, now), dueAt, task.attempt(),
                    error);
        }
        catch (RuntimeException again) {
            long now = clock.now();
            return new Completion.Retry(task.id(), task.claim(), tiers.statusFor(now, now), now, task.attempt(),
                    error);
        }
    }

    /** Tells the listeners of a failure around the handler, which may itself be a listener's. */
    private void report(ClaimedTask task, TaskEvents.Failure failure, Throwable error) {
        try {
            events.attemptFailed(context(task), failure, error);
        }
        catch (RuntimeException ignored) { // a listener that fails again must not keep the task from ending
        }
    }

    private static TaskContext context(ClaimedTask task) {
        return new TaskContext(task.id(), task.type(), task.key(), task.attempt(), Instant.ofEpochMilli(task.dueAt()),
                Instant.ofEpochMilli(task.createdAt()), task.claim(), TraceHeaders.decode(task.traceContext()));
    }

    private @Nullable Object bind(ClaimedTask task, TaskHandler handler) {
        return handler.payloadType() == null ? null
                : codec.decode(upcasters.upcast(task.type(), task.payload()), handler.payloadType());
    }

    private Completion failed(ClaimedTask task, TaskContext context, @Nullable HandlerSettings settings,
            Throwable failure, long duration, TaskEvents.Failure reason) {
        String error = describe(failure);
        int maxAttempts = retryPolicy.maxAttempts(task.maxAttempts(), settings);
        if (task.attempt() >= maxAttempts) {
            events.finished(context, TaskEvents.Outcome.FAILED, duration);
            events.attemptFailed(context, reason, failure);
            failures.deadLettered(task, maxAttempts, failure);
            return new Completion.Failed(task.id(), task.claim(), task.attempt(), "Failed on attempt "
                    + task.attempt() + " of " + maxAttempts + ": " + error);
        }
        long now = clock.now();
        long dueAt = now + retryPolicy.backoffMillis(task.attempt(), settings);
        events.finished(context, TaskEvents.Outcome.RETRY, duration);
        events.attemptFailed(context, reason, failure);
        failures.retried(task, maxAttempts, dueAt, failure);
        return new Completion.Retry(task.id(), task.claim(), tiers.statusFor(dueAt, now), dueAt, task.attempt(),
                "Attempt " + task.attempt() + " of " + maxAttempts + " failed: " + error);
    }

    static String describe(Throwable failure) {
        return failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    }
}
