package io.github.delayqueue.store;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The task table, the queue's only source of truth. Every status change is a compare-and-set whose affected rows
 * decide who won; the caller passes the time so one clock governs a whole operation. Inserts, cancels and reschedules
 * join the caller's transaction when {@link #joinsCallerTransaction()} says so, and commit at once otherwise; every
 * other method runs in a transaction of its own.
 *
 * <p>A write that fails on a lock says which way, because the queue answers the two differently outside a caller's
 * transaction: a {@link org.springframework.dao.CannotAcquireLockException} when it waited for a lock in vain (the
 * caller hears at once: another wait would most likely be as long), any other
 * {@link org.springframework.dao.PessimisticLockingFailureException} when the database rolled it back to break a
 * deadlock (the queue writes it again, up to three times in all).
 */
public interface TaskStore {

    /**
     * The store on a MySQL 8 or MariaDB 10.6+ table, the one the queue is built for; {@code DelayQueueRuntime}'s
     * builder makes it from its {@code DataSource}.
     *
     * @param dataSource where the table is
     * @param table the task table's name
     * @param claimTimeout how long a claim waits for the database's answer: the lease
     * @return the store; close it (it is {@link AutoCloseable}) to release the connections it opened itself
     */
    static TaskStore jdbc(DataSource dataSource, String table, Duration claimTimeout) {
        String advice = JdbcTimeoutAdvice.check(dataSource);
        if (advice != null) {
            org.slf4j.LoggerFactory.getLogger(TaskStore.class).warn(advice);
        }
        return new JdbcTaskStore(dataSource, table, claimTimeout);
    }

    /**
     * Whether the store's writes, made now on the calling thread, go with the caller's transaction: committed or
     * rolled back with it. When not, each write has committed by the time it returns. The queue asks before every
     * write and follows the answer: what comes after a write (indexing, the wake-up, the events) waits for the commit
     * exactly when this is true, and a deadlock is retried only when it is false (it then rolled back the call's own
     * statements only). The default suits a store that joins every active Spring transaction; {@link JdbcTaskStore}
     * joins only a transaction of its own DataSource.
     */
    default boolean joinsCallerTransaction() {
        return TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Inserts tasks in as few statements as the payload sizes allow; results come back in input order, and a keyed
     * task is reported {@link InsertedTask#created() created} to exactly one call. All or nothing: inside the caller's
     * transaction the rows go with it; outside one, when this throws nothing was stored, unless it throws
     * {@link WriteOutcomeUnknownException} (the connection failed while the database committed).
     */
    List<InsertedTask> insert(List<NewTask> tasks, long now);

    /**
     * As {@link #insert}, for the rows of several calls made outside transactions that the queue writes together.
     * A store whose writes can wait for a lock (a key that a caller's transaction, still open, holds) may give up
     * after a short wait and throw a {@link org.springframework.dao.PessimisticLockingFailureException}, having
     * stored nothing: the queue then writes each call's rows alone with {@link #insert}, so that only the call whose
     * key is held waits for it, and the others are not held up (by default the lock wait of the database, 50 s on
     * InnoDB). The default is {@link #insert}.
     */
    default List<InsertedTask> insertShared(List<NewTask> tasks, long now) {
        return insert(tasks, now);
    }

    /**
     * Claims up to {@code limit} tasks in {@code status} due by {@code dueBy}, earliest first, skipping locked rows.
     */
    List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Lease lease);

    /**
     * Like {@link #claimDue(TaskStatus, long, int, Lease)}, but only tasks whose type is among {@code types}: the
     * engine claims only the types it can start now (it has their handler, they are not paused, they are below their
     * {@code concurrency}), so a task of another type stays pending for an instance that runs it. Empty {@code types}
     * claim nothing.
     */
    default List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Set<String> types, Lease lease) {
        return claimDue(status, dueBy, limit, types, ClaimLimits.none(), lease);
    }

    /**
     * Like {@link #claimDue(TaskStatus, long, int, Set, Lease)}, holding the cluster-wide limits of {@code limits}: of
     * a limited type it takes no more than its limit leaves, counting what every instance runs of it under a live lease
     * (and, for a start rate, what claims took of it this second), atomically with the claim, and tells
     * {@code limits} when a limit stopped it ({@link ClaimLimits#reached}).
     */
    List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Set<String> types, ClaimLimits limits,
            Lease lease);

    /** Claims those of {@code ids} that are still pending and due by {@code dueBy}; the rest are left alone. */
    List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Lease lease);

    /**
     * Like {@link #claimIds(Collection, long, Lease)}, but only tasks whose type is among {@code types}; the others
     * stay pending. Empty {@code types} claim nothing.
     */
    default List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, Lease lease) {
        return claimIds(ids, dueBy, types, ClaimLimits.none(), lease);
    }

    /**
     * Like {@link #claimIds(Collection, long, Set, Lease)}, holding the cluster-wide limits of {@code limits} as
     * {@link #claimDue(TaskStatus, long, int, Set, ClaimLimits, Lease)} does: ids of a limited type beyond what its
     * limit leaves stay pending, earliest due claimed first.
     */
    List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits, Lease lease);

    /**
     * Every task {@code RUNNING} under {@code owner}, not started, whose lease ends after {@code leaseAfter}: after a
     * claim whose commit the connection lost, the owner (one process) finds what it won without knowing. Rows whose
     * lease ends sooner are left to lease recovery, which another instance may be doing right now.
     */
    List<ClaimedTask> claimedBy(String owner, long leaseAfter);

    /**
     * Records that the handlers of these claims started: each counts as an attempt from now on, so lease recovery
     * tells a task that ran (and may have killed its instance) from one that was only claimed. Returns how many were
     * marked: a claim no longer held (its lease was lost), or marked already, is not.
     */
    int markStarted(Collection<ClaimId> started, long now);

    /** Writes how claims ended; only rows still {@code RUNNING} under the same claim change. */
    void finish(List<Completion> completions, long now);

    /**
     * Marks this claim {@code SUCCEEDED} as part of the caller's transaction, so a transactional handler's work and
     * its task's completion commit or roll back together: called on the handler's thread, in the transaction the
     * queue opened around the handler, after the handler returned. {@code false} when the claim is no longer held
     * (the lease ran out and another instance may run the task): the caller then rolls back. A store that joins no
     * transaction of the caller's then ({@link #joinsCallerTransaction()}) throws {@link IllegalStateException}
     * instead of writing on its own, which would make the completion independent of the handler's work.
     */
    default boolean succeedInCallerTransaction(ClaimId claim, long now) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot complete a task in its handler's "
                + "transaction; run transactional handlers on a store that can, such as TaskStore.jdbc");
    }

    /**
     * Extends the lease of claims still held; returns those it renewed. A claim missing from the answer is lost:
     * its task finished, or another instance took it after its lease ran out.
     */
    Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil);

    /** Hands back claims whose handler never started: pending again in the given status, attempts untouched. */
    void release(Map<ClaimId, TaskStatus> statusByClaim, long now);

    /**
     * Takes up to {@code limit} {@code RUNNING} tasks whose lease ended before {@code now} (or that have no lease, as
     * a row edited by hand may) and applies the decision for each (retry or dead letter), all in one transaction.
     */
    List<Completion> recoverExpiredLeases(long now, int limit, Function<ExpiredLease, Completion> decision);

    /**
     * Moves up to {@code limit} {@code SCHEDULED} tasks due by {@code dueBy} to {@code QUEUED}, earliest first,
     * skipping locked rows, and returns them once that is committed, for the caller to index: no row lock is held
     * while the index answers.
     */
    List<DueTask> migrate(long dueBy, int limit, long now);

    /**
     * A page of tasks in {@code status} after {@code after} in (due time, id) order, for rebuilding the index;
     * start with {@code new DueTask(0, Long.MIN_VALUE)}.
     */
    List<DueTask> pending(TaskStatus status, DueTask after, int limit);

    /** Those of {@code ids} that are still pending ({@code SCHEDULED} or {@code QUEUED}), with their due times. */
    List<DueTask> pendingAmong(Collection<Long> ids);

    /** Those of {@code ids} that are still pending and of one of {@code types}, with their due times. */
    List<DueTask> pendingAmong(Collection<Long> ids, Set<String> types);

    /**
     * Up to {@code limit} tasks in {@code status} of one of {@code types} due by {@code dueBy}, earliest first, read
     * without locking them: the look of the hybrid sweep for rows the index lost, which expects few or none and claims
     * what it finds with {@link #claimIds(Collection, long, Set, ClaimLimits, Lease)}. A locking claim of due rows
     * costs far more when it finds none (InnoDB walks it on past its range over the delete-marked entries of tasks
     * that just left the status: measured on MariaDB 10.11); unlike it, this read shows concurrent callers the same
     * rows.
     */
    List<DueTask> pendingDue(TaskStatus status, long dueBy, int limit, Set<String> types);

    /** The earliest due time among tasks in {@code status}. */
    OptionalLong nextDue(TaskStatus status);

    /** The earliest due time among tasks in {@code status} whose type is among {@code types}; empty for none. */
    OptionalLong nextDue(TaskStatus status, Set<String> types);

    /**
     * The task types paused on every instance that shares this store: no instance claims their tasks, which stay
     * pending until {@link #resume}. Read by every engine every second, so it must be cheap.
     */
    Set<String> pausedTypes();

    /** Pauses {@code type} for every instance sharing the store; {@code false} when it was paused already. */
    boolean pause(String type, long now);

    /** Resumes a paused type; {@code false} when it was not paused. */
    boolean resume(String type);

    /** Cancels a pending task; its type when it was cancelled, empty when it was not pending. */
    Optional<String> cancel(long id, long now);

    /**
     * Cancels the pending task of this type and key, and its follow-up waiting for a running one; the id of the
     * first of them cancelled.
     */
    OptionalLong cancel(String type, String key, long now);

    /**
     * A page of the unstarted tasks of {@code type} (pending, or follow-ups waiting) whose key starts with
     * {@code keyPrefix} ({@code null}: every task of the type, those without a key first), after {@code after} in
     * (key, id) order ({@code null}: from the start). Read without locks, from an index range.
     */
    List<TaskView> unstarted(String type, @Nullable String keyPrefix, @Nullable TaskView after, int limit);

    /**
     * Cancels those of {@code ids} that have not started (pending or waiting); the ids it cancelled. These bulk
     * writes ({@link #movePending}, {@link #shiftPending} too) commit before they return, and when they throw they
     * changed nothing, unless they throw {@link WriteOutcomeUnknownException} or a
     * {@link org.springframework.transaction.TransactionException} (the connection failed while the database
     * committed).
     */
    List<Long> cancelUnstarted(Collection<Long> ids, long now);

    /**
     * Moves those of {@code ids} that are pending to {@code dueAt}, {@code QUEUED} when due by {@code queuedUpTo},
     * else {@code SCHEDULED}; the tasks it moved, as they are now.
     */
    List<TaskView> movePending(Collection<Long> ids, long dueAt, long queuedUpTo, long now);

    /** Shifts the due times of those of {@code ids} that are pending, each into its tier; those it moved. */
    List<TaskView> shiftPending(Collection<Long> ids, long shiftMillis, long queuedUpTo, long now);

    /**
     * Makes pending up to {@code limit} follow-ups ({@code WAITING}) whose key no live task holds any more, earliest
     * due first: {@code QUEUED} when due by {@code queuedUpTo}, else {@code SCHEDULED}. A live task created for the
     * key meanwhile keeps its follow-up waiting. Returns those it released.
     */
    List<DueTask> releaseWaiting(long queuedUpTo, int limit, long now);

    /**
     * Moves a pending task to a new due time and tier; {@code false} when it was not pending. Outside the caller's
     * transaction it has committed when it returns; when it throws nothing was changed, unless it throws
     * {@link WriteOutcomeUnknownException} (the connection failed while the database committed).
     */
    boolean reschedule(long id, long dueAt, TaskStatus status, long now);

    Optional<TaskView> find(long id);

    Optional<TaskView> find(String type, String key);

    /** The database server's clock in epoch milliseconds: the clock every instance aligns its due times to. */
    long currentTimeMillis();

    /**
     * {@link #currentTimeMillis()} in epoch microseconds, whatever the session's or server's time zone. A store that
     * reads only milliseconds keeps this default, and alignment is then a millisecond coarser.
     */
    default long currentTimeMicros() {
        return Math.multiplyExact(currentTimeMillis(), 1000L);
    }

    /**
     * Deletes the tasks of each status whose status last changed before that status's cutoff, oldest first, in
     * statements of {@code batchSize} rows, for up to {@code budgetMillis}. One instance purges at a time (they would
     * only fight over the same rows); returns how many rows it deleted, or -1 when another instance is purging.
     * Never holds locks that a cancel, a reschedule or a completion would wait for.
     */
    long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis);
}
