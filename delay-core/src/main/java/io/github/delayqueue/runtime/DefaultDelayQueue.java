package io.github.delayqueue.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.OutcomeUnknownException;
import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskStore;
import io.github.delayqueue.store.WriteOutcomeUnknownException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedRuntimeException;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.transaction.TransactionException;

/**
 * The {@link DelayQueue} applications call. It validates and writes the row, joining the caller's transaction when
 * the store can ({@link TaskStore#joinsCallerTransaction()}: a transaction of the queue's DataSource), and only after
 * the commit hands the task to the index ({@link IndexWrites}: off the caller's thread) and wakes the consumers, so a
 * rolled-back task is never seen. A write that could not join committed at once, and is indexed at once; inside a
 * transaction of another resource that is logged, once per transaction name.
 */
class DefaultDelayQueue implements DelayQueue {

    /** Tasks per page of a bulk operation: each page is one read and one short write. */
    static final int BULK_BATCH = 500;

    /** How to settle a schedule whose outcome is unknown. */
    private static final String RETRY_A_SCHEDULE = "Check with find(), or retry with a key (TaskRequest.key): while a "
            + "task with the same type and key is pending or running, the retry returns it instead of storing another.";

    /** What a bulk cancel or reschedule stopped part-way can do: the same change twice is the change once. */
    private static final String REPEATABLE = "Calling it again goes on with the rest.";

    /** What a bulk shift stopped part-way must not do: a second shift moves the tasks it moved again. */
    private static final String SHIFTED_TWICE = "Calling shiftAll again would shift the tasks done so far once more: "
            + "find the others with findUnstarted and move them with reschedule.";

    /** How to settle a cancel or a reschedule whose outcome is unknown: the same change twice is the change once. */
    private static final String RETRY_A_CHANGE = "Check with find(), or do it again: a second cancel or reschedule "
            + "of the task leaves it as the first did (a cancel then answers false if the first was done).";

    /**
     * How long a shared write of keys may be in flight before the next caller takes its slot: a write takes
     * milliseconds, so one this long waits for a lock (a transaction still open holding a key) and the others go on
     * without it. Writes without a key wait for no lock; they keep their slots.
     */
    private static final long STALLED_KEYED_WRITE_NANOS = Duration.ofMillis(500).toNanos();

    private final TaskStore store;

    private final Indexer indexer;

    private final Consumer<List<DueTask>> addToIndex;

    private final PayloadCodec codec;

    private final TaskValidator validator;

    private final Tiers tiers;

    private final QueueClock clock;

    private final WakeSignal wake;

    private final TaskEvents events;

    /** Shares the writes of calls without a key. */
    private final InsertBatcher plainWrites;

    /**
     * Shares the writes of calls with a key, apart from the others: a write with a key that a transaction still
     * open holds waits for that transaction, and the calls without a key must not wait with it.
     */
    private final InsertBatcher keyedWrites;

    private final TraceContextSource traces;

    private final LongConsumer createdIds;

    private final UnjoinedTransactions unjoined = new UnjoinedTransactions();

    /**
     * A queue that indexes new tasks on the calling thread, before the call returns (the engine's tests).
     *
     * @param maxPayloadBytes the largest payload accepted, as JSON in UTF-8 ({@code delay.payload.max-size})
     */
    public DefaultDelayQueue(TaskStore store, Indexer indexer, PayloadCodec codec, long maxPayloadBytes,
            Tiers tiers, QueueClock clock, WakeSignal wake, TaskEvents events) {
        this(store, indexer, indexer::add, codec, maxPayloadBytes, tiers, clock, wake, events,
                TraceContextSource.NONE);
    }

    /**
     * @param addToIndex adds committed tasks of the near tier to the index: {@link IndexWrites} at run time, so a
     *        caller never waits on Redis
     * @param traces the trace each call's tasks carry to their runs
     */
    public DefaultDelayQueue(TaskStore store, Indexer indexer, Consumer<List<DueTask>> addToIndex, PayloadCodec codec,
            long maxPayloadBytes, Tiers tiers, QueueClock clock, WakeSignal wake, TaskEvents events,
            TraceContextSource traces) {
        this(store, indexer, addToIndex, codec, maxPayloadBytes, tiers, clock, wake, events, traces, id -> {
        });
    }

    /** @param createdIds told the highest id each write created: how fast tasks come in ({@link Arrivals}) */
    DefaultDelayQueue(TaskStore store, Indexer indexer, Consumer<List<DueTask>> addToIndex, PayloadCodec codec,
            long maxPayloadBytes, Tiers tiers, QueueClock clock, WakeSignal wake, TaskEvents events,
            TraceContextSource traces, LongConsumer createdIds) {
        this.createdIds = createdIds;
        this.store = store;
        this.traces = traces;
        this.indexer = indexer;
        this.addToIndex = addToIndex;
        this.codec = codec;
        this.validator = new TaskValidator(maxPayloadBytes);
        this.tiers = tiers;
        this.clock = clock;
        this.wake = wake;
        this.events = events;
        this.plainWrites = new InsertBatcher(store, 2, Long.MAX_VALUE, this::index);
        this.keyedWrites = new InsertBatcher(store, 2, STALLED_KEYED_WRITE_NANOS, this::index);
    }

    @Override
    public long schedule(String type, @Nullable Object payload, Duration delay) {
        return schedule(TaskRequest.of(type, payload).delay(requireArgument(delay, "delay")).build());
    }

    @Override
    public long schedule(String type, @Nullable Object payload, Instant dueAt) {
        return schedule(TaskRequest.of(type, payload).dueAt(requireArgument(dueAt, "dueAt")).build());
    }

    @Override
    public long schedule(TaskRequest request) {
        return submit(request).id();
    }

    @Override
    public List<Long> scheduleAll(Collection<TaskRequest> requests) {
        return submitAll(requests).stream().map(Scheduled::id).toList();
    }

    @Override
    public Scheduled submit(TaskRequest request) {
        return submitAll(List.of(requireArgument(request, "request"))).get(0);
    }

    @Override
    public List<Scheduled> submitAll(Collection<TaskRequest> requests) {
        requireArgument(requests, "requests");
        if (requests.isEmpty()) {
            return List.of();
        }
        // The high end of the clock's window: a due time computed from it is never early on the reference clock,
        // whichever way this instance's and the consumer's offsets err.
        long now = clock.latestNow();
        String trace = TraceHeaders.capture(traces); // once a call: its tasks are scheduled in one trace
        List<NewTask> tasks = new ArrayList<>(requests.size());
        for (TaskRequest request : requests) {
            tasks.add(toNewTask(requireArgument(request, "a request in the collection"), now, trace));
        }
        String what = "schedule " + tasks.size() + " task(s)";
        boolean joined = joinsCallerTransaction(what, () -> "Scheduling a task of type '" + tasks.get(0).type() + "'");
        // Outside the caller's transaction, concurrent callers share multi-row statements, those with keys apart;
        // inside it, the rows must go through the transaction's own connection. A request that changes a pending task
        // goes on its own: its statements run in a transaction.
        boolean changes = tasks.stream().anyMatch(NewTask::changesPending);
        InsertBatcher shared = tasks.stream().anyMatch(task -> task.key() != null) ? keyedWrites : plainWrites;
        List<InsertedTask> inserted = storage(what, joined, RETRY_A_SCHEDULE,
                () -> joined || changes ? store.insert(tasks, now) : shared.insert(tasks, now));
        List<Scheduled> answers = new ArrayList<>(inserted.size());
        List<String> createdTypes = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < inserted.size(); i++) {
            InsertedTask task = inserted.get(i);
            answers.add(new Scheduled(task.id(), task.outcome()));
            if (task.created()) {
                createdTypes.add(tasks.get(i).type());
            }
            if (task.created() || task.changed()) {
                earliest = Math.min(earliest, task.dueAt());
            }
        }
        long wakeAt = earliest;
        AfterCommit.run(joined, () -> {
            if (joined || changes) {
                index(inserted); // otherwise the batcher indexed them with its statement
            }
            if (wakeAt != Long.MAX_VALUE) {
                wake.dueAt(wakeAt);
            }
            createdTypes.forEach(events::scheduled);
        });
        return answers;
    }

    /**
     * Adds the newly created or changed tasks of the near tier to the time index, under their due times, and takes
     * out those a change moved to the far tier. A task scheduled twice in one call is indexed once, as it ended.
     */
    private void index(List<InsertedTask> inserted) {
        Map<Long, InsertedTask> last = new LinkedHashMap<>();
        long highestCreated = 0;
        for (InsertedTask task : inserted) {
            if (task.created() || task.changed()) {
                last.put(task.id(), task);
            }
            if (task.created()) {
                highestCreated = Math.max(highestCreated, task.id());
            }
        }
        if (highestCreated > 0) {
            createdIds.accept(highestCreated);
        }
        List<DueTask> queued = new ArrayList<>();
        List<Long> far = new ArrayList<>();
        for (InsertedTask task : last.values()) {
            if (task.status() == TaskStatus.QUEUED) {
                queued.add(new DueTask(task.id(), task.dueAt()));
            }
            else if (task.changed()) {
                far.add(task.id());
            }
        }
        addToIndex.accept(queued);
        if (!far.isEmpty()) {
            indexer.remove(far);
        }
    }

    private NewTask toNewTask(TaskRequest request, long now, @Nullable String trace) {
        validator.checkType(request.type());
        validator.checkKey(request.key());
        validator.checkMaxAttempts(request.maxAttempts());
        validator.checkKeyMode(request);
        long dueAt = validator.dueAt(request, now, clock);
        String payload = codec.encode(request.payload());
        validator.checkPayload(request.type(), payload);
        Duration maxDelay = request.maxDelay();
        return new NewTask(request.type(), request.key(), payload, dueAt, tiers.statusFor(dueAt, now),
                request.maxAttempts(), request.keyMode(),
                maxDelay == null ? NewTask.NO_MAX_DELAY : maxDelay.toMillis(), tiers.queuedUpTo(now), trace);
    }

    @Override
    public boolean cancel(long id) {
        String what = "cancel task " + id;
        boolean joined = joinsCallerTransaction(what, () -> "Cancelling task " + id);
        Optional<String> type = storage(what, joined, () -> store.cancel(id, clock.now()));
        type.ifPresent(t -> AfterCommit.run(joined, () -> {
            indexer.remove(List.of(id));
            events.cancelled(t);
        }));
        return type.isPresent();
    }

    @Override
    public boolean cancel(String type, String key) {
        validator.checkType(type);
        validator.checkKey(requireArgument(key, "key"));
        String what = "cancel task " + type + "/" + key;
        boolean joined = joinsCallerTransaction(what, () -> "Cancelling task " + type + "/" + key);
        OptionalLong id = storage(what, joined, () -> store.cancel(type, key, clock.now()));
        id.ifPresent(cancelled -> AfterCommit.run(joined, () -> {
            indexer.remove(List.of(cancelled));
            events.cancelled(type);
        }));
        return id.isPresent();
    }

    @Override
    public boolean reschedule(long id, Instant dueAt) {
        long now = clock.latestNow();
        long due = validator.dueAt(requireArgument(dueAt, "dueAt"), now, clock);
        TaskStatus status = tiers.statusFor(due, now);
        String what = "reschedule task " + id;
        boolean joined = joinsCallerTransaction(what, () -> "Rescheduling task " + id);
        boolean moved = storage(what, joined, () -> store.reschedule(id, due, status, now));
        if (moved) {
            AfterCommit.run(joined, () -> {
                if (status == TaskStatus.QUEUED) {
                    indexer.add(List.of(new DueTask(id, due)));
                }
                else {
                    indexer.remove(List.of(id));
                }
                wake.dueAt(due);
            });
        }
        return moved;
    }

    // --- bulk operations: pages of at most BULK_BATCH tasks, each written and committed by itself -------------------

    @Override
    public long cancelAll(String type, @Nullable String keyPrefix) {
        checkBulk(type, keyPrefix);
        return eachPage(type, keyPrefix, "cancel tasks of type " + type, REPEATABLE, page -> {
            List<Long> cancelled = store.cancelUnstarted(ids(page), clock.now());
            indexer.remove(cancelled);
            cancelled.forEach(id -> events.cancelled(type));
            return cancelled.size();
        });
    }

    @Override
    public long rescheduleAll(String type, @Nullable String keyPrefix, Instant dueAt) {
        checkBulk(type, keyPrefix);
        long now = clock.latestNow();
        long due = validator.dueAt(requireArgument(dueAt, "dueAt"), now, clock);
        return eachPage(type, keyPrefix, "reschedule tasks of type " + type, REPEATABLE,
                page -> indexMoved(store.movePending(ids(page), due, tiers.queuedUpTo(now), now)));
    }

    @Override
    public long shiftAll(String type, @Nullable String keyPrefix, Duration shift) {
        checkBulk(type, keyPrefix);
        long shiftMillis = validator.shiftMillis(requireArgument(shift, "shift"));
        return eachPage(type, keyPrefix, "shift tasks of type " + type, SHIFTED_TWICE, page -> {
            long now = clock.latestNow();
            return indexMoved(store.shiftPending(ids(page), shiftMillis, tiers.queuedUpTo(now), now));
        });
    }

    @Override
    public List<TaskView> findUnstarted(String type, @Nullable String keyPrefix, @Nullable TaskView after, int limit) {
        checkBulk(type, keyPrefix);
        if (limit < 1 || limit > BULK_BATCH * 2) {
            throw new IllegalArgumentException("limit must be 1 to " + BULK_BATCH * 2 + ", not " + limit);
        }
        return storage("find tasks of type " + type, false, () -> store.unstarted(type, keyPrefix, after, limit));
    }

    private void checkBulk(String type, @Nullable String keyPrefix) {
        validator.checkType(type);
        validator.checkKeyPrefix(keyPrefix);
    }

    /**
     * Runs {@code work} on each page of the type's unstarted tasks; the sum of what it answers. A failure after the
     * first pages says how many tasks those changed, which stay changed, and {@code again}: whether calling it again
     * is safe.
     */
    private long eachPage(String type, @Nullable String keyPrefix, String what, String again,
            Function<List<TaskView>, Integer> work) {
        long done = 0;
        TaskView after = null;
        while (true) {
            long started = System.nanoTime();
            TaskView cursor = after;
            List<TaskView> page;
            try {
                page = storage(what, false, () -> store.unstarted(type, keyPrefix, cursor, BULK_BATCH));
                if (page.isEmpty()) {
                    return done;
                }
                done += storage(what, false, () -> work.apply(page));
            }
            catch (DelayQueueException ex) {
                throw done == 0 ? ex : failedPartWay(what, done, again, ex);
            }
            if (page.size() < BULK_BATCH) {
                return done;
            }
            after = page.get(page.size() - 1);
            // the consumers' claims running beside it are slowed less (the bulk workload of delay-bench measures it);
            // an interrupted caller goes on without pauses, as it always did
            Pacing.pauseAfter(started);
        }
    }

    /** Puts moved tasks of the near tier in the index under their new due times, and takes the others out. */
    private int indexMoved(List<TaskView> moved) {
        List<DueTask> near = new ArrayList<>();
        List<Long> far = new ArrayList<>();
        for (TaskView task : moved) {
            if (task.status() == TaskStatus.QUEUED) {
                near.add(new DueTask(task.id(), task.dueAt().toEpochMilli()));
            }
            else {
                far.add(task.id());
            }
        }
        indexer.add(near);
        if (!far.isEmpty()) {
            indexer.remove(far);
        }
        near.stream().mapToLong(DueTask::dueAt).min().ifPresent(wake::dueAt);
        return moved.size();
    }

    private static List<Long> ids(List<TaskView> page) {
        return page.stream().map(TaskView::id).toList();
    }

    @Override
    public Optional<TaskView> find(long id) {
        return storage("find task " + id, false, () -> store.find(id));
    }

    @Override
    public Optional<TaskView> find(String type, String key) {
        validator.checkType(type);
        validator.checkKey(requireArgument(key, "key"));
        return storage("find task " + type + "/" + key, false, () -> store.find(type, key));
    }

    /**
     * Whether the write about to be made goes with the caller's transaction: the store's answer, asked once per call
     * so that the write, what follows it ({@link AfterCommit}) and the retry of a deadlock ({@link #storage}) all
     * follow the same one. Inside a transaction it cannot join, the caller is warned (once per transaction name).
     */
    private boolean joinsCallerTransaction(String what, Supplier<String> described) {
        boolean joined = storage(what, false, store::joinsCallerTransaction);
        if (!joined) {
            unjoined.committedOnItsOwn(described);
        }
        return joined;
    }

    /**
     * Runs a storage call; a deadlock of a write that did not join the caller's transaction is retried (the database
     * rolled its statements back, so nothing was written, and a fresh start usually succeeds), one inside the
     * caller's transaction is the caller's to handle. A lock wait timeout is not retried: the write waited the
     * database's lock wait already (50 s by default), most likely for a transaction that holds the same key and would
     * hold it as long again. Failures become a {@link DelayQueueException} that says what became of the call.
     */
    private static <T> T storage(String what, boolean inTransaction, Supplier<T> work) {
        return storage(what, inTransaction, RETRY_A_CHANGE, work);
    }

    /** As {@link #storage(String, boolean, Supplier)}; {@code retry} says how to settle an unknown outcome. */
    private static <T> T storage(String what, boolean inTransaction, String retry, Supplier<T> work) {
        int attempt = 1;
        try {
            while (true) {
                try {
                    return work.get();
                }
                catch (PessimisticLockingFailureException ex) {
                    if (attempt++ >= 3 || inTransaction || ex instanceof CannotAcquireLockException) {
                        throw ex;
                    }
                }
            }
        }
        catch (WriteOutcomeUnknownException | TransactionException ex) {
            throw new OutcomeUnknownException("Could not " + what + ": the connection to the task database failed "
                    + "while it was committing (" + cause(ex) + "), so it may or may not have been done. " + retry,
                    ex);
        }
        catch (CannotAcquireLockException ex) {
            throw new DelayQueueException("Could not " + what + ": a row it needed stayed locked by another "
                    + "transaction for the database's whole lock wait (" + cause(ex) + "). Nothing of this call was "
                    + "written" + (inTransaction ? " (the database may have rolled back the surrounding transaction "
                            + "too). " : ". ")
                    + "With a key, the other transaction has usually scheduled, cancelled or rescheduled the same "
                    + "type and key and not yet committed: retry once it has ended, and keep such transactions short.",
                    ex);
        }
        catch (DataAccessException ex) {
            throw new DelayQueueException("Could not " + what + ": the task database failed (" + cause(ex) + "). "
                    + (inTransaction ? "Nothing of this call was written; the database may have rolled back the "
                            + "surrounding transaction too (a deadlock does): retry the transaction."
                            : "Nothing was stored or changed; retry when it is back."), ex);
        }
    }

    /** A bulk operation failed after it had changed {@code done} tasks, in pages that each committed. */
    private static DelayQueueException failedPartWay(String what, long done, String again, DelayQueueException ex) {
        boolean unknown = ex instanceof OutcomeUnknownException;
        Throwable storageFailure = ex.getCause() != null ? ex.getCause() : ex;
        String message = "Could not " + what + " to the end: the task database failed ("
                + (storageFailure instanceof RuntimeException r ? cause(r) : storageFailure.toString()) + ") after "
                + done + " task(s) had been done, in batches that stay done; "
                + (unknown ? "the connection broke while the next batch (at most " + BULK_BATCH + " tasks) was "
                        + "committing, so it may or may not have been done, and the rest were not. "
                        : "the rest were not. ")
                + again;
        return unknown ? new OutcomeUnknownException(message, storageFailure)
                : new DelayQueueException(message, storageFailure);
    }

    private static String cause(RuntimeException ex) {
        Throwable cause = ex instanceof NestedRuntimeException nested ? nested.getMostSpecificCause() : ex;
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    private static <T> T requireArgument(@Nullable T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return Objects.requireNonNull(value);
    }
}
