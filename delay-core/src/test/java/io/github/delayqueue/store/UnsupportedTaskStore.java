package io.github.delayqueue.store;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import org.jspecify.annotations.Nullable;

/** A {@link TaskStore} whose every method throws; unit tests override the few their subject calls. */
public abstract class UnsupportedTaskStore implements TaskStore {

    @Override
    public List<InsertedTask> insert(List<NewTask> tasks, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Lease lease) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Set<String> types, Lease lease) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Set<String> types, ClaimLimits limits,
            Lease lease) {
        return claimDue(status, dueBy, limit, types, lease); // a fake without limits overrides the claim above
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits,
            Lease lease) {
        return claimIds(ids, dueBy, types, lease);
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Lease lease) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, Lease lease) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ClaimedTask> claimedBy(String owner, long leaseAfter) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int markStarted(Collection<ClaimId> started, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void finish(List<Completion> completions, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void release(Map<ClaimId, TaskStatus> statusByClaim, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<Completion> recoverExpiredLeases(long now, int limit, Function<ExpiredLease, Completion> decision) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<DueTask> migrate(long dueBy, int limit, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<DueTask> pending(TaskStatus status, DueTask after, int limit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<DueTask> pendingAmong(Collection<Long> ids) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<DueTask> pendingAmong(Collection<Long> ids, Set<String> types) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<DueTask> pendingDue(TaskStatus status, long dueBy, int limit, Set<String> types) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Set<String> pausedTypes() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean pause(String type, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean resume(String type) {
        throw new UnsupportedOperationException();
    }

    @Override
    public OptionalLong nextDue(TaskStatus status) {
        throw new UnsupportedOperationException();
    }

    @Override
    public OptionalLong nextDue(TaskStatus status, Set<String> types) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<String> cancel(long id, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public OptionalLong cancel(String type, String key, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<DueTask> releaseWaiting(long queuedUpTo, int limit, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<TaskView> unstarted(String type, @Nullable String keyPrefix, @Nullable TaskView after, int limit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<Long> cancelUnstarted(Collection<Long> ids, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<TaskView> movePending(Collection<Long> ids, long dueAt, long queuedUpTo, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<TaskView> shiftPending(Collection<Long> ids, long shiftMillis, long queuedUpTo, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean reschedule(long id, long dueAt, TaskStatus status, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<TaskView> find(long id) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<TaskView> find(String type, String key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long currentTimeMillis() {
        throw new UnsupportedOperationException();
    }

    @Override
    public long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
        throw new UnsupportedOperationException();
    }
}
