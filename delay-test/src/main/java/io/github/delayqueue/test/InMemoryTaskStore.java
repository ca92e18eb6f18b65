package io.github.delayqueue.test;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

import io.github.delayqueue.api.Scheduled;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.api.TaskView;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.ExpiredLease;
import io.github.delayqueue.store.InsertedTask;
import io.github.delayqueue.store.Lease;
import io.github.delayqueue.store.NewTask;
import io.github.delayqueue.store.TaskStore;
import io.github.delayqueue.store.TaskTable;
import io.github.delayqueue.store.TypeLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@link TaskStore} in memory, for tests that need a store but no database: the compare-and-set rules of the JDBC
 * store ({@link TaskStore#jdbc}), to which {@link TaskStoreContract} holds both. One lock guards the table, so every
 * call is one atomic step, as the database's transaction makes it, and a claim never meets a row another claim has
 * locked (nothing here is left for {@code SKIP LOCKED} to skip). Ids count up from 1 as an auto-increment column's do.
 * <p>
 * The store's clock, the database's in the real one, is the {@link Clock} given: a {@link SettableClock} when a test
 * moves time. Every other method takes its time as an argument, as the interface says, so a test that passes its own
 * times needs no clock at all. Like the table's columns, it refuses a type, key or payload that is too long or
 * missing, with the exception Spring makes of the database's refusal, and then stores nothing of the call.
 */
public class InMemoryTaskStore implements TaskStore {

    private static final Comparator<Row> DUE_ORDER = Comparator.comparingLong((Row row) -> row.dueAt)
        .thenComparingLong(row -> row.id);

    private final Object lock = new Object();

    private final NavigableMap<Long, Row> rows = new TreeMap<>();

    /** Per limited type: the second and how many claims took of it in that second. */
    private final Map<String, long[]> starts = new HashMap<>();

    private final Set<String> paused = ConcurrentHashMap.newKeySet();

    /** The ids of each key's tasks, oldest first: at most one of them live, at most one waiting. */
    private final Map<Identity, List<Long>> idsByKey = new HashMap<>();

    /** Stands for the database's named purge lock: one purge at a time. */
    private final AtomicBoolean purging = new AtomicBoolean();

    private final Clock clock;

    private long lastId;

    public InMemoryTaskStore() {
        this(Clock.systemUTC());
    }

    public InMemoryTaskStore(Clock clock) {
        this.clock = clock;
    }

    // --- insert ---------------------------------------------------------------------------------------------

    @Override
    public List<InsertedTask> insert(List<NewTask> tasks, long now) {
        synchronized (lock) {
            tasks.forEach(InMemoryTaskStore::refuseWhatTheColumnsWould); // before anything is stored
            List<InsertedTask> inserted = new ArrayList<>(tasks.size());
            for (NewTask task : tasks) {
                Row holder = task.key() == null ? null : keyHolder(task.type(), task.key());
                if (holder == null) {
                    Row row = store(task, now);
                    inserted.add(new InsertedTask(row.id, true, row.status, row.dueAt));
                }
                else if (task.keyMode() == TaskRequest.KeyMode.RUN_ONCE_MORE && holder.status == TaskStatus.RUNNING) {
                    Row waiting = waitingOf(task.type(), task.key());
                    if (waiting == null) {
                        waiting = store(new NewTask(task.type(), task.key(), task.payload(), task.dueAt(),
                                TaskStatus.WAITING, task.maxAttempts(), task.keyMode(), task.maxDelayMillis(),
                                task.queuedUpTo(), task.traceContext()), now);
                    }
                    inserted.add(new InsertedTask(waiting.id, Scheduled.Outcome.QUEUED_AFTER_RUNNING, waiting.status,
                            waiting.dueAt));
                }
                else if (holder.status.isPending() && task.changesPending()
                        && task.keyMode() != TaskRequest.KeyMode.RUN_ONCE_MORE) {
                    inserted.add(holder.change(task, now));
                }
                else {
                    inserted.add(new InsertedTask(holder.id, false, holder.status, holder.dueAt));
                }
            }
            return inserted;
        }
    }

    private static void refuseWhatTheColumnsWould(NewTask task) {
        refuseIfLonger("task_type", task.type(), TaskTable.MAX_TYPE_LENGTH);
        if (task.key() != null) {
            refuseIfLonger("task_key", task.key(), TaskTable.MAX_KEY_LENGTH);
        }
        if (task.payload() == null || task.status() == null) {
            throw new DataIntegrityViolationException("Column 'payload' or 'status' cannot be null");
        }
        if (TaskTable.payloadBytes(task.payload()) > TaskTable.MAX_PAYLOAD_BYTES) {
            throw new DataIntegrityViolationException("Data too long for column 'payload'");
        }
    }

    private static void refuseIfLonger(String column, @Nullable String value, int maxCharacters) {
        if (value == null) {
            throw new DataIntegrityViolationException("Column '" + column + "' cannot be null");
        }
        if (value.codePointCount(0, value.length()) > maxCharacters) {
            throw new DataIntegrityViolationException("Data too long for column '" + column + "'");
        }
    }

    // --- claim ----------------------------------------------------------------------------------------------

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Lease lease) {
        if (!status.isPending()) {
            throw new IllegalArgumentException("Only pending tasks can be claimed, not " + status);
        }
        if (limit <= 0) {
            return List.of();
        }
        synchronized (lock) {
            return select(row -> row.status == status && row.dueAt <= dueBy, DUE_ORDER, limit).stream()
                .map(row -> row.claim(lease))
                .toList();
        }
    }

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Set<String> types, ClaimLimits limits,
            Lease lease) {
        if (!status.isPending()) {
            throw new IllegalArgumentException("Only pending tasks can be claimed, not " + status);
        }
        if (limit <= 0) {
            return List.of();
        }
        synchronized (lock) {
            Quota quota = new Quota(limits, types, lease.now());
            List<ClaimedTask> claimed = new ArrayList<>();
            for (Row row : select(row -> row.status == status && row.dueAt <= dueBy && types.contains(row.type),
                    DUE_ORDER, Integer.MAX_VALUE)) {
                if (claimed.size() == limit) {
                    break;
                }
                if (quota.take(row.type)) {
                    claimed.add(row.claim(lease));
                }
            }
            quota.close();
            return claimed;
        }
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Lease lease) {
        return claimIdsOf(ids, dueBy, null, ClaimLimits.none(), lease);
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits,
            Lease lease) {
        return claimIdsOf(ids, dueBy, types, limits, lease);
    }

    /** The ids' pending due rows, of {@code types} ({@code null}: of any type), earliest due first. */
    private List<ClaimedTask> claimIdsOf(Collection<Long> ids, long dueBy, @Nullable Set<String> types,
            ClaimLimits limits, Lease lease) {
        synchronized (lock) {
            List<Row> pending = new ArrayList<>();
            for (long id : new TreeSet<>(ids)) {
                Row row = rows.get(id);
                if (row != null && row.status.isPending() && row.dueAt <= dueBy
                        && (types == null || types.contains(row.type))) {
                    pending.add(row);
                }
            }
            pending.sort(DUE_ORDER);
            Quota quota = new Quota(limits, types == null ? Set.of() : types, lease.now());
            List<ClaimedTask> claimed = new ArrayList<>();
            for (Row row : pending) {
                if (quota.take(row.type)) {
                    claimed.add(row.claim(lease));
                }
            }
            quota.close();
            return claimed;
        }
    }

    /**
     * The cluster-wide limits of one claim, as the JDBC store holds them: a limited type's room is its running limit
     * less its rows running under a live lease, and its per-second limit less what claims took of it this second.
     */
    private final class Quota {

        private final ClaimLimits limits;

        private final Map<String, Integer> left = new HashMap<>();

        private final Map<String, Integer> taken = new HashMap<>();

        private final long now;

        private final long second;

        Quota(ClaimLimits limits, Set<String> types, long now) {
            this.limits = limits;
            this.now = now;
            this.second = Math.floorDiv(now, 1000) * 1000;
            limits.of(types).forEach((type, limit) -> {
                long room = Integer.MAX_VALUE;
                if (limit.running() > 0) {
                    long running = rows.values().stream().filter(row -> row.status == TaskStatus.RUNNING
                            && row.type.equals(type) && row.leaseUntil != null && row.leaseUntil > now).count();
                    room = Math.min(room, limit.running() - running);
                }
                if (limit.startsPerSecond() > 0) {
                    room = Math.min(room, limit.startsPerSecond() - startedIn(type));
                }
                left.put(type, (int) Math.max(0, room));
            });
        }

        /** Whether a task of {@code type} may be claimed; counts it if so. */
        boolean take(String type) {
            Integer room = left.get(type);
            if (room == null) {
                return true;
            }
            int count = taken.getOrDefault(type, 0);
            if (count >= room) {
                return false;
            }
            taken.put(type, count + 1);
            return true;
        }

        /** Records the starts taken and tells the limits which types took all their room. */
        void close() {
            left.forEach((type, room) -> {
                int count = taken.getOrDefault(type, 0);
                if (count > 0) {
                    starts.put(type, new long[] { windowOf(type), startedIn(type) + count });
                }
                if (count == room) {
                    limits.reached(type);
                }
            });
        }

        /** The second this claim counts in ({@link TypeLimit#countingSecond}): its own, or a later one counted in. */
        private long windowOf(String type) {
            long[] window = starts.get(type);
            return window == null ? second : TypeLimit.countingSecond(now, window[0]);
        }

        private long startedIn(String type) {
            long[] window = starts.get(type);
            return window != null && windowOf(type) == window[0] ? window[1] : 0;
        }
    }

    @Override
    public List<ClaimedTask> claimedBy(String owner, long leaseAfter) {
        synchronized (lock) {
            return select(row -> row.status == TaskStatus.RUNNING && owner.equals(row.owner)
                    && row.leaseUntil != null && row.leaseUntil > leaseAfter && row.startedAt == null, null,
                    Integer.MAX_VALUE).stream().map(Row::claimed).toList();
        }
    }

    // --- start, finish, leases, release ----------------------------------------------------------------------

    @Override
    public int markStarted(Collection<ClaimId> started, long now) {
        synchronized (lock) {
            int marked = 0;
            for (ClaimId claim : new LinkedHashSet<>(started)) {
                Row row = held(claim);
                if (row != null && row.startedAt == null) {
                    row.attempts++;
                    row.startedAt = now;
                    marked++;
                }
            }
            return marked;
        }
    }

    @Override
    public void finish(List<Completion> completions, long now) {
        synchronized (lock) {
            write(completions, now);
        }
    }

    /**
     * Inside a Spring transaction with synchronization, the success is written when that transaction commits and not
     * at all if it rolls back, as the database's would be; outside one, at once. Whether the claim is held is
     * answered now.
     */
    @Override
    public boolean succeedInCallerTransaction(ClaimId claim, long now) {
        synchronized (lock) {
            if (held(claim) == null) {
                return false;
            }
        }
        List<Completion> success = List.of(new Completion.Succeeded(claim.id(), claim.claim()));
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    finish(success, now);
                }
            });
        }
        else {
            finish(success, now);
        }
        return true;
    }

    /** Successes first, then retries, then dead letters, as the database store sends them. */
    private void write(List<Completion> completions, long now) {
        for (Completion completion : completions) {
            Row row = held(completion.claimId());
            if (completion instanceof Completion.Succeeded && row != null) {
                row.status = TaskStatus.SUCCEEDED;
                row.leaseUntil = null;
                if (row.startedAt == null) { // its start was in the same batch, or never written
                    row.attempts++;
                    row.startedAt = now;
                }
                row.updatedAt = now;
            }
        }
        for (Completion completion : completions) {
            Row row = held(completion.claimId());
            if (completion instanceof Completion.Retry retry && row != null) {
                row.status = retry.status();
                row.dueAt = retry.dueAt();
                row.owner = null;
                row.leaseUntil = null;
                row.startedAt = null;
                row.attempts = retry.attempts();
                row.failed(retry.attempts(), now, retry.error());
                row.updatedAt = now;
            }
        }
        for (Completion completion : completions) {
            Row row = held(completion.claimId());
            if (completion instanceof Completion.Failed failed && row != null) {
                row.status = TaskStatus.FAILED;
                row.leaseUntil = null;
                row.attempts = failed.attempts();
                row.failed(failed.attempts(), now, failed.error());
                row.updatedAt = now;
            }
            else if (completion instanceof Completion.Parked parked && row != null) {
                row.status = TaskStatus.PARKED;
                row.leaseUntil = null;
                row.attempts = parked.attempts();
                row.failed(parked.attempts(), now, parked.error());
                row.updatedAt = now;
            }
        }
    }

    @Override
    public Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil) {
        synchronized (lock) {
            Set<ClaimId> renewed = new HashSet<>();
            for (ClaimId claim : held) {
                Row row = held(claim);
                if (row != null) {
                    row.leaseUntil = leaseUntil; // updated_at stays: it says when the status changed
                    renewed.add(claim);
                }
            }
            return renewed;
        }
    }

    @Override
    public void release(Map<ClaimId, TaskStatus> statusByClaim, long now) {
        synchronized (lock) {
            statusByClaim.forEach((claim, status) -> {
                Row row = held(claim);
                if (row != null && row.startedAt == null) {
                    row.status = status;
                    row.owner = null;
                    row.leaseUntil = null;
                    row.updatedAt = now;
                }
            });
        }
    }

    @Override
    public List<Completion> recoverExpiredLeases(long now, int limit, Function<ExpiredLease, Completion> decision) {
        synchronized (lock) {
            List<Row> expired = select(row -> row.status == TaskStatus.RUNNING
                    && (row.leaseUntil == null || row.leaseUntil < now), null, limit);
            List<Completion> decided = new ArrayList<>(expired.size());
            for (Row row : expired) {
                decided.add(decision.apply(new ExpiredLease(row.id, row.type, row.owner, row.dueAt, row.attempts,
                        row.maxAttempts, row.claims, row.startedAt != null)));
            }
            // all decided before anything is written: a decision that throws leaves every row as it was
            write(decided, now);
            return decided;
        }
    }

    // --- migration and index rebuild --------------------------------------------------------------------------

    @Override
    public List<DueTask> migrate(long dueBy, int limit, long now) {
        synchronized (lock) {
            List<Row> due = select(row -> row.status == TaskStatus.SCHEDULED && row.dueAt <= dueBy, DUE_ORDER,
                    limit);
            List<DueTask> tasks = due.stream().map(row -> new DueTask(row.id, row.dueAt)).toList();
            if (tasks.isEmpty()) {
                return tasks;
            }
            for (Row row : due) {
                if (row.status == TaskStatus.SCHEDULED) {
                    row.status = TaskStatus.QUEUED;
                    row.updatedAt = now;
                }
            }
            return tasks;
        }
    }

    @Override
    public List<DueTask> pending(TaskStatus status, DueTask after, int limit) {
        synchronized (lock) {
            return select(row -> row.status == status
                    && (row.dueAt > after.dueAt() || row.dueAt == after.dueAt() && row.id > after.id()), DUE_ORDER,
                    limit).stream().map(row -> new DueTask(row.id, row.dueAt)).toList();
        }
    }

    @Override
    public List<DueTask> pendingAmong(Collection<Long> ids) {
        synchronized (lock) {
            Set<Long> wanted = new HashSet<>(ids);
            return select(row -> wanted.contains(row.id) && row.status.isPending(), null, Integer.MAX_VALUE).stream()
                .map(row -> new DueTask(row.id, row.dueAt))
                .toList();
        }
    }

    @Override
    public List<DueTask> pendingAmong(Collection<Long> ids, Set<String> types) {
        synchronized (lock) {
            Set<Long> wanted = new HashSet<>(ids);
            return select(row -> wanted.contains(row.id) && row.status.isPending() && types.contains(row.type), null,
                    Integer.MAX_VALUE).stream()
                .map(row -> new DueTask(row.id, row.dueAt))
                .toList();
        }
    }

    @Override
    public List<DueTask> pendingDue(TaskStatus status, long dueBy, int limit, Set<String> types) {
        synchronized (lock) {
            return select(row -> row.status == status && row.dueAt <= dueBy && types.contains(row.type), DUE_ORDER,
                    limit).stream().map(row -> new DueTask(row.id, row.dueAt)).toList();
        }
    }

    @Override
    public OptionalLong nextDue(TaskStatus status) {
        synchronized (lock) {
            return rows.values().stream().filter(row -> row.status == status).mapToLong(row -> row.dueAt).min();
        }
    }

    @Override
    public OptionalLong nextDue(TaskStatus status, Set<String> types) {
        synchronized (lock) {
            return rows.values().stream()
                .filter(row -> row.status == status && types.contains(row.type))
                .mapToLong(row -> row.dueAt)
                .min();
        }
    }

    @Override
    public Set<String> pausedTypes() {
        return Set.copyOf(paused);
    }

    @Override
    public boolean pause(String type, long now) {
        return paused.add(type);
    }

    @Override
    public boolean resume(String type) {
        return paused.remove(type);
    }

    // --- user operations --------------------------------------------------------------------------------------

    @Override
    public Optional<String> cancel(long id, long now) {
        synchronized (lock) {
            Row row = rows.get(id);
            if (row == null || !notStarted(row)) {
                return Optional.empty();
            }
            row.cancel(now);
            return Optional.of(row.type);
        }
    }

    @Override
    public OptionalLong cancel(String type, String key, long now) {
        synchronized (lock) {
            OptionalLong first = OptionalLong.empty();
            for (Row row : keyRows(type, key)) {
                if (notStarted(row)) {
                    row.cancel(now);
                    first = first.isPresent() ? first : OptionalLong.of(row.id);
                }
            }
            return first;
        }
    }

    @Override
    public boolean reschedule(long id, long dueAt, TaskStatus status, long now) {
        synchronized (lock) {
            Row row = rows.get(id);
            if (row == null || !row.status.isPending()) {
                return false;
            }
            row.dueAt = dueAt;
            row.status = status;
            row.updatedAt = now;
            return true;
        }
    }

    @Override
    public Optional<TaskView> find(long id) {
        synchronized (lock) {
            return Optional.ofNullable(rows.get(id)).map(Row::view);
        }
    }

    @Override
    public Optional<TaskView> find(String type, String key) {
        synchronized (lock) {
            Row live = keyHolder(type, key);
            List<Row> all = keyRows(type, key);
            Row found = live != null ? live : all.isEmpty() ? null : all.get(all.size() - 1);
            return Optional.ofNullable(found).map(Row::view);
        }
    }

    /** Every task, by id: for tests that look at the whole table. */
    public List<TaskView> all() {
        synchronized (lock) {
            return rows.values().stream().map(Row::view).toList();
        }
    }

    // --- clock and purge --------------------------------------------------------------------------------------

    @Override
    public long currentTimeMillis() {
        return Math.floorDiv(currentTimeMicros(), 1000);
    }

    @Override
    public long currentTimeMicros() {
        Instant now = clock.instant();
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000);
    }

    /** Statement by statement, as the database store deletes: each batch is one step, and other calls go between. */
    @Override
    public long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
        if (!purging.compareAndSet(false, true)) {
            return -1;
        }
        try {
            long total = 0;
            long deadline = System.nanoTime() + budgetMillis * 1_000_000;
            for (Map.Entry<TaskStatus, Long> cutoff : changedBefore.entrySet()) {
                int deleted;
                do {
                    deleted = deleteOldest(cutoff.getKey(), cutoff.getValue(), batchSize);
                    total += deleted;
                }
                while (deleted == batchSize && System.nanoTime() < deadline);
            }
            return total;
        }
        finally {
            purging.set(false);
        }
    }

    private int deleteOldest(TaskStatus status, long changedBefore, int batchSize) {
        synchronized (lock) {
            List<Row> old = select(row -> row.status == status && row.updatedAt < changedBefore,
                    Comparator.comparingLong((Row row) -> row.updatedAt).thenComparingLong(row -> row.id), batchSize);
            for (Row row : old) {
                rows.remove(row.id);
                if (row.key != null) {
                    idsByKey.getOrDefault(new Identity(row.type, row.key), new ArrayList<>()).remove(row.id);
                }
            }
            return old.size();
        }
    }

    /**
     * Holds the purge lock as another instance's purge would, until closed: meanwhile {@link #purge} answers -1.
     */
    public AutoCloseable holdPurgeLock() {
        if (!purging.compareAndSet(false, true)) {
            throw new IllegalStateException("A purge is running");
        }
        return () -> purging.set(false);
    }

    // --- for the inspector ------------------------------------------------------------------------------------

    /** Runs {@code work} on the rows, by id, under the table's lock: reads and writes of the in-memory inspector. */
    /**
     * The live (pending or running) task that holds this key, or {@code null}: as the table's unique index on
     * {@code live_key}, a finished task holds no key. Called under the lock.
     */
    @Nullable Row keyHolder(String type, String key) {
        return keyRows(type, key).stream().filter(row -> row.status.isPending() || row.status == TaskStatus.RUNNING)
            .findFirst().orElse(null);
    }

    /** The follow-up of the key waiting for its running task, or {@code null}. Called under the lock. */
    private @Nullable Row waitingOf(String type, String key) {
        return keyRows(type, key).stream().filter(row -> row.status == TaskStatus.WAITING).findFirst().orElse(null);
    }

    /** The key's tasks, oldest first. Called under the lock. */
    private List<Row> keyRows(String type, String key) {
        return idsByKey.getOrDefault(new Identity(type, key), List.of()).stream().map(rows::get).toList();
    }

    private Row store(NewTask task, long now) {
        Row row = new Row(++lastId, task, now);
        rows.put(row.id, row);
        if (row.key != null) {
            idsByKey.computeIfAbsent(new Identity(row.type, row.key), k -> new ArrayList<>()).add(row.id);
        }
        return row;
    }

    /** Pending, or a follow-up waiting: what a cancel stops. */
    private static boolean notStarted(Row row) {
        return row.status.isPending() || row.status == TaskStatus.WAITING;
    }

    @Override
    public List<TaskView> unstarted(String type, @Nullable String keyPrefix, @Nullable TaskView after, int limit) {
        // the table's order: unkeyed tasks by id (only without a prefix), then keyed ones by (key, id)
        Comparator<Row> order = Comparator.comparing((Row row) -> row.key != null)
            .thenComparing(row -> row.key == null ? "" : row.key).thenComparingLong(row -> row.id);
        synchronized (lock) {
            return rows.values().stream()
                .filter(row -> row.type.equals(type) && notStarted(row))
                .filter(row -> keyPrefix == null || row.key != null && row.key.startsWith(keyPrefix))
                .filter(row -> after == null || order.compare(row, keyAndId(after)) > 0)
                .sorted(order).limit(limit).map(Row::view).toList();
        }
    }

    /** A row standing for a cursor: only its key and id are compared. */
    private static Row keyAndId(TaskView after) {
        return new Row(after.id(), new NewTask(after.type(), after.key(), "null", 0, TaskStatus.SCHEDULED, null), 0);
    }

    @Override
    public List<Long> cancelUnstarted(Collection<Long> ids, long now) {
        synchronized (lock) {
            List<Long> cancelled = new ArrayList<>();
            for (long id : ids) {
                Row row = rows.get(id);
                if (row != null && notStarted(row)) {
                    row.cancel(now);
                    cancelled.add(id);
                }
            }
            return cancelled;
        }
    }

    @Override
    public List<TaskView> movePending(Collection<Long> ids, long dueAt, long queuedUpTo, long now) {
        return moved(ids, row -> dueAt, queuedUpTo, now);
    }

    @Override
    public List<TaskView> shiftPending(Collection<Long> ids, long shiftMillis, long queuedUpTo, long now) {
        return moved(ids, row -> row.dueAt + shiftMillis, queuedUpTo, now);
    }

    private List<TaskView> moved(Collection<Long> ids, ToLongFunction<Row> due, long queuedUpTo, long now) {
        synchronized (lock) {
            List<TaskView> moved = new ArrayList<>();
            for (long id : ids) {
                Row row = rows.get(id);
                if (row != null && row.status.isPending()) {
                    row.dueAt = due.applyAsLong(row);
                    row.status = row.dueAt <= queuedUpTo ? TaskStatus.QUEUED : TaskStatus.SCHEDULED;
                    row.updatedAt = now;
                    moved.add(row.view());
                }
            }
            return moved;
        }
    }

    @Override
    public List<DueTask> releaseWaiting(long queuedUpTo, int limit, long now) {
        synchronized (lock) {
            List<Row> waiting = select(row -> row.status == TaskStatus.WAITING && keyHolder(row.type, row.key) == null,
                    Comparator.comparingLong((Row row) -> row.dueAt).thenComparingLong(row -> row.id), limit);
            for (Row row : waiting) {
                row.status = row.dueAt <= queuedUpTo ? TaskStatus.QUEUED : TaskStatus.SCHEDULED;
                row.updatedAt = now;
            }
            return waiting.stream().map(row -> new DueTask(row.id, row.dueAt)).toList();
        }
    }

    <T> T locked(Function<Collection<Row>, T> work) {
        synchronized (lock) {
            return work.apply(rows.values());
        }
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    /** The rows matching {@code filter}, in {@code order} (by id when {@code null}), at most {@code limit}. */
    private List<Row> select(Predicate<Row> filter, @Nullable Comparator<Row> order, int limit) {
        var stream = rows.values().stream().filter(filter);
        if (order != null) {
            stream = stream.sorted(order);
        }
        return stream.limit(Math.max(0, limit)).toList();
    }

    /** The row while this claim holds it: {@code RUNNING} under that claim number, else {@code null}. */
    private @Nullable Row held(ClaimId claim) {
        Row row = rows.get(claim.id());
        return row != null && row.status == TaskStatus.RUNNING && row.claims == claim.claim() ? row : null;
    }

    private record Identity(String type, String key) {
    }

    /** One row of the task table, with its columns; changed only under the table's lock. */
    static final class Row {

        final long id;

        final String type;

        final @Nullable String key;

        String payload;

        long dueAt;

        TaskStatus status;

        int attempts;

        @Nullable Integer maxAttempts;

        long claims;

        @Nullable String owner;

        @Nullable Long leaseUntil;

        @Nullable Long startedAt;

        @Nullable String lastError;

        /** {@code error_history}: the latest failed attempts, oldest first. */
        final Deque<TaskView.FailedAttempt> errors = new ArrayDeque<>();

        final long createdAt;

        long updatedAt;

        final @Nullable String traceContext;

        Row(long id, NewTask task, long now) {
            this.id = id;
            this.type = task.type();
            this.key = task.key();
            this.payload = task.payload();
            this.dueAt = task.dueAt();
            this.status = task.status();
            this.maxAttempts = task.maxAttempts();
            this.createdAt = now;
            this.updatedAt = now;
            this.traceContext = task.traceContext();
        }

        /** A failure's error, as {@code last_error} and the last of the bounded history. */
        void failed(int attempts, long now, String error) {
            lastError = TaskTable.fitError(error);
            errors.addLast(new TaskView.FailedAttempt(attempts, Instant.ofEpochMilli(now), lastError));
            while (errors.size() > TaskTable.MAX_ERROR_HISTORY) {
                errors.removeFirst();
            }
        }

        /** Moves the row to {@code RUNNING} under the next claim number; the attempt counts when it starts. */
        ClaimedTask claim(Lease lease) {
            status = TaskStatus.RUNNING;
            owner = lease.owner();
            leaseUntil = lease.until();
            claims++;
            startedAt = null;
            updatedAt = lease.now();
            return claimed();
        }

        ClaimedTask claimed() {
            return new ClaimedTask(id, type, key, payload, dueAt, attempts + 1, maxAttempts, createdAt, claims,
                    traceContext);
        }

        /** A pending row replaced or pushed out by {@code task}, as the table's one-statement updates do. */
        InsertedTask change(NewTask task, long now) {
            boolean replace = task.keyMode() == TaskRequest.KeyMode.REPLACE;
            long due = replace ? task.dueAt() : task.debouncedDueAt(dueAt, createdAt);
            status = task.statusFor(due);
            dueAt = due;
            payload = task.payload();
            maxAttempts = task.maxAttempts();
            updatedAt = now;
            return new InsertedTask(id, replace ? Scheduled.Outcome.REPLACED : Scheduled.Outcome.EXTENDED, status,
                    dueAt);
        }

        void cancel(long now) {
            status = TaskStatus.CANCELLED;
            owner = null;
            leaseUntil = null;
            updatedAt = now;
        }

        TaskView view() {
            return new TaskView(id, type, key, status, Instant.ofEpochMilli(dueAt), attempts, maxAttempts, lastError,
                    Instant.ofEpochMilli(createdAt), Instant.ofEpochMilli(updatedAt), List.copyOf(errors));
        }
    }
}
