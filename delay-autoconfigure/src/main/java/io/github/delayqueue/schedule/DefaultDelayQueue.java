package io.github.delayqueue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.DelayQueueException;
import io.github.delayqueue.api.OutcomeUnknownException;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.engine.Indexer;
import io.github.delayqueue.engine.QueueClock;
import io.github.delayqueue.engine.TaskEvents;
import io.github.delayqueue.engine.Tiers;
import io.github.delayqueue.engine.WakeSignal;
import io.github.delayqueue.handler.PayloadCodec;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.InsertOutcomeUnknownException;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedRuntimeException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@link DelayQueue} applications call. It validates, writes the row (joining the caller's transaction), and
 * only after the commit indexes the task and wakes the consumers, so a rolled-back task is never seen.
 */
public class DefaultDelayQueue implements DelayQueue {

    private final TaskStore store;

    private final @Nullable Indexer indexer;

    private final PayloadCodec codec;

    private final TaskValidator validator;

    private final Tiers tiers;

    private final QueueClock clock;

    private final WakeSignal wake;

    private final TaskEvents events;

    private final InsertBatcher batcher;

    /** @param maxPayloadBytes the largest payload accepted, as JSON in UTF-8 ({@code delay.payload.max-size}) */
    public DefaultDelayQueue(TaskStore store, @Nullable Indexer indexer, PayloadCodec codec, long maxPayloadBytes,
            Tiers tiers, QueueClock clock, WakeSignal wake, TaskEvents events) {
        this.store = store;
        this.indexer = indexer;
        this.codec = codec;
        this.validator = new TaskValidator(maxPayloadBytes);
        this.tiers = tiers;
        this.clock = clock;
        this.wake = wake;
        this.events = events;
        this.batcher = new InsertBatcher(store, 2, this::index);
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
        return scheduleAll(List.of(requireArgument(request, "request"))).get(0);
    }

    @Override
    public List<Long> scheduleAll(Collection<TaskRequest> requests) {
        requireArgument(requests, "requests");
        if (requests.isEmpty()) {
            return List.of();
        }
        // The high end of the clock's window: a due time computed from it is never early on the reference clock,
        // whichever way this instance's and the consumer's offsets err.
        long now = clock.latestNow();
        List<NewTask> tasks = new ArrayList<>(requests.size());
        for (TaskRequest request : requests) {
            tasks.add(toNewTask(requireArgument(request, "a request in the collection"), now));
        }
        // Outside a transaction, concurrent callers share multi-row statements; inside one, the row must go through
        // the transaction's own connection.
        boolean inTransaction = TransactionSynchronizationManager.isSynchronizationActive();
        List<InsertedTask> inserted = storage("schedule " + tasks.size() + " task(s)",
                () -> inTransaction ? store.insert(tasks, now) : batcher.insert(tasks, now));
        List<Long> ids = new ArrayList<>(inserted.size());
        List<String> createdTypes = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < inserted.size(); i++) {
            InsertedTask task = inserted.get(i);
            ids.add(task.id());
            if (task.created()) {
                createdTypes.add(tasks.get(i).type());
                earliest = Math.min(earliest, task.dueAt());
            }
        }
        long wakeAt = earliest;
        AfterCommit.run(() -> {
            if (inTransaction) {
                index(inserted); // outside a transaction the batcher indexed them with its statement
            }
            if (wakeAt != Long.MAX_VALUE) {
                wake.dueAt(wakeAt);
            }
            createdTypes.forEach(events::scheduled);
        });
        return ids;
    }

    /** Adds the newly created tasks of the near tier to the time index. */
    private void index(List<InsertedTask> inserted) {
        if (indexer == null) {
            return;
        }
        List<DueTask> queued = new ArrayList<>();
        for (InsertedTask task : inserted) {
            if (task.created() && task.status() == TaskStatus.QUEUED) {
                queued.add(new DueTask(task.id(), task.dueAt()));
            }
        }
        indexer.add(queued);
    }

    private NewTask toNewTask(TaskRequest request, long now) {
        validator.checkType(request.type());
        validator.checkKey(request.key());
        validator.checkMaxAttempts(request.maxAttempts());
        long dueAt = validator.dueAt(request, now, clock);
        String payload = codec.encode(request.payload());
        validator.checkPayload(request.type(), payload);
        return new NewTask(request.type(), request.key(), payload, dueAt, tiers.statusFor(dueAt, now),
                request.maxAttempts());
    }

    @Override
    public boolean cancel(long id) {
        Optional<String> type = storage("cancel task " + id, () -> store.cancel(id, clock.now()));
        type.ifPresent(t -> AfterCommit.run(() -> {
            if (indexer != null) {
                indexer.remove(List.of(id));
            }
            events.cancelled(t);
        }));
        return type.isPresent();
    }

    @Override
    public boolean cancel(String type, String key) {
        validator.checkType(type);
        validator.checkKey(requireArgument(key, "key"));
        OptionalLong id = storage("cancel task " + type + "/" + key, () -> store.cancel(type, key, clock.now()));
        id.ifPresent(cancelled -> AfterCommit.run(() -> {
            if (indexer != null) {
                indexer.remove(List.of(cancelled));
            }
            events.cancelled(type);
        }));
        return id.isPresent();
    }

    @Override
    public boolean reschedule(long id, Instant dueAt) {
        long now = clock.latestNow();
        long due = validator.dueAt(requireArgument(dueAt, "dueAt"), now, clock);
        TaskStatus status = tiers.statusFor(due, now);
        boolean moved = storage("reschedule task " + id, () -> store.reschedule(id, due, status, now));
        if (moved) {
            AfterCommit.run(() -> {
                if (indexer != null) {
                    if (status == TaskStatus.QUEUED) {
                        indexer.add(List.of(new DueTask(id, due)));
                    }
                    else {
                        indexer.remove(List.of(id));
                    }
                }
                wake.dueAt(due);
            });
        }
        return moved;
    }

    @Override
    public Optional<TaskView> find(long id) {
        return storage("find task " + id, () -> store.find(id));
    }

    @Override
    public Optional<TaskView> find(String type, String key) {
        validator.checkType(type);
        validator.checkKey(requireArgument(key, "key"));
        return storage("find task " + type + "/" + key, () -> store.find(type, key));
    }

    /**
     * Runs a storage call; a deadlock or lock timeout outside a surrounding transaction is retried (the database
     * rolled the statements back, so nothing was written), inside one it is the caller's to handle. Failures become
     * a {@link DelayQueueException} that says what became of the call.
     */
    private static <T> T storage(String what, Supplier<T> work) {
        boolean inTransaction = TransactionSynchronizationManager.isActualTransactionActive();
        int attempt = 1;
        try {
            while (true) {
                try {
                    return work.get();
                }
                catch (PessimisticLockingFailureException ex) {
                    if (attempt++ >= 3 || inTransaction) {
                        throw ex;
                    }
                }
            }
        }
        catch (InsertOutcomeUnknownException | TransactionException ex) {
            throw new OutcomeUnknownException("Could not " + what + ": the connection to the task database failed "
                    + "while it was committing (" + cause(ex) + "), so it may or may not have been done. Check with "
                    + "find(), or retry a schedule with a key (TaskRequest.key): a task with the same type and key is "
                    + "stored once, and the retry returns it.", ex);
        }
        catch (DataAccessException ex) {
            throw new DelayQueueException("Could not " + what + ": the task database failed (" + cause(ex) + "). "
                    + (inTransaction ? "Nothing of this call was written; the database may have rolled back the "
                            + "surrounding transaction too (a deadlock does): retry the transaction."
                            : "Nothing was stored or changed; retry when it is back."), ex);
        }
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
