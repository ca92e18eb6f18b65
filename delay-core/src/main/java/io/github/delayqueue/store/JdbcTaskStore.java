package io.github.delayqueue.store;

import java.time.Duration;
import java.util.ArrayList;
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

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link TaskStore} on MySQL 8 / MariaDB 10.6+ through Spring's {@link JdbcTemplate}, so inserts made inside the
 * application's transaction use its connection. The work is split by job: new rows go through {@link TaskInserts},
 * claims are taken by {@link TaskClaims} and written back by {@link ClaimWrites}, finished rows are deleted by
 * {@link TaskPurge}; the index tier's reads and writes and the user's operations are here. The SQL is in
 * {@link TaskSql}; statements without a row list are formatted once, when the store is made. The engine's statements
 * take their connections from {@link EngineConnections}, so they see the database back within a retry of its return
 * even while the pool is still reconnecting; the user's operations take the pool's.
 */
class JdbcTaskStore implements TaskStore, AutoCloseable {

    /** How long a claim may wait for its answer, unless told: the default lease. */
    private static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(30);

    private final DataSource dataSource;

    private final JdbcTemplate jdbc;

    private final OwnConnection own;

    private final EngineConnections engine;

    /** On {@link #engine}'s connections. */
    private final JdbcTemplate engineJdbc;

    /** On {@link #engine}'s connections. */
    private final TransactionTemplate engineTx;

    private final String table;

    private final TaskInserts inserts;

    private final TaskClaims claims;

    private final ClaimWrites writes;

    private final TaskPurge purge;

    private final String selectForMigration;

    private final String selectPendingPage;

    private final String nextDue;

    /** The quoted name of the {@code (status, task_type, due_at)} index, which the statements of some types name. */
    private final String typeIndex;

    private final String pausedTypes;

    private final String pause;

    private final String resume;

    private final String selectTypeForUpdate;

    private final String selectIdByKeyForUpdate;

    private final String selectReleasable;

    private final String releaseWaiting;

    private final String cancel;

    private final String reschedule;

    private final String findById;

    private final String findByKey;

    public JdbcTaskStore(DataSource dataSource, String table) {
        this(dataSource, table, DEFAULT_CLAIM_TIMEOUT);
    }

    /**
     * @param claimTimeout how long a claim waits for the database's answer: the lease, after which its tasks would
     *     not be started anyway
     */
    public JdbcTaskStore(DataSource dataSource, String table, Duration claimTimeout) {
        // quoted in every statement: a reserved word works too
        this.table = TableNames.quoted(TableNames.requireValidTaskTable(table));
        String paused = TableNames.quoted(TableNames.pausedTypesTable(table));
        this.pausedTypes = TaskSql.PAUSED_TYPES.formatted(paused);
        this.pause = TaskSql.PAUSE.formatted(paused);
        this.resume = TaskSql.RESUME.formatted(paused);
        this.dataSource = dataSource;
        this.jdbc = LockFailures.template(dataSource);
        this.own = new OwnConnection(dataSource, jdbc);
        this.engine = new EngineConnections(dataSource);
        this.engineJdbc = LockFailures.template(engine);
        this.engineTx = readCommitted(engine);
        this.inserts = new TaskInserts(dataSource, jdbc, this.table);
        this.typeIndex = TableNames.quoted(TableNames.typeDueIndex(table));
        this.claims = new TaskClaims(new ClaimConnection(engine, claimTimeout), engineJdbc, this.table, typeIndex,
                TableNames.quoted(TableNames.typeLimitsTable(table)));
        this.writes = new ClaimWrites(engineJdbc, engineTx, this.table);
        this.purge = new TaskPurge(engineJdbc, this.table);
        this.selectForMigration = TaskSql.SELECT_FOR_MIGRATION.formatted(this.table);
        this.selectPendingPage = TaskSql.SELECT_PENDING_PAGE.formatted(this.table);
        this.nextDue = TaskSql.NEXT_DUE.formatted(this.table);
        this.selectTypeForUpdate = TaskSql.SELECT_TYPE_FOR_UPDATE.formatted(this.table);
        this.selectIdByKeyForUpdate = TaskSql.SELECT_ID_BY_KEY_FOR_UPDATE.formatted(this.table);
        this.selectReleasable = TaskSql.SELECT_RELEASABLE.formatted(this.table);
        this.releaseWaiting = TaskSql.RELEASE_WAITING.formatted(this.table);
        this.cancel = TaskSql.CANCEL.formatted(this.table);
        this.reschedule = TaskSql.RESCHEDULE.formatted(this.table);
        this.findById = TaskSql.FIND_BY_ID.formatted(this.table);
        this.findByKey = TaskSql.FIND_BY_KEY.formatted(this.table);
    }

    /**
     * READ COMMITTED: locking reads lock the rows they return and no gaps, so claims never deadlock with the inserts
     * of producers scheduling into the same index range.
     */
    private static TransactionTemplate readCommitted(DataSource dataSource) {
        TransactionTemplate template = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        template.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        return template;
    }

    /**
     * Gives the claim connection back to the pool; the store still works afterwards (it takes a new one). Spring calls
     * it when the context closes (an {@link AutoCloseable} bean's destroy method), after the engine has stopped.
     */
    @Override
    public void close() {
        claims.giveBack();
    }

    /** See {@link CallerTransaction}: a transaction of this store's DataSource, with auto-commit off. */
    @Override
    public boolean joinsCallerTransaction() {
        return CallerTransaction.joins(dataSource);
    }

    @Override
    public List<InsertedTask> insert(List<NewTask> tasks, long now) {
        return inserts.insert(tasks, now, false);
    }

    /** Keyed rows give up on a lock after a second ({@link OwnConnection#withShortLockWait}). */
    @Override
    public List<InsertedTask> insertShared(List<NewTask> tasks, long now) {
        return inserts.insert(tasks, now, true);
    }

    // --- claims: taken, then written back ------------------------------------------------------------------

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Lease lease) {
        return engine.call(() -> claims.due(status, dueBy, limit, lease));
    }

    @Override
    public List<ClaimedTask> claimDue(TaskStatus status, long dueBy, int limit, Set<String> types, ClaimLimits limits,
            Lease lease) {
        return engine.call(() -> claims.due(status, dueBy, limit, types, limits, lease));
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Lease lease) {
        return engine.call(() -> claims.ids(ids, dueBy, lease));
    }

    @Override
    public List<ClaimedTask> claimIds(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits,
            Lease lease) {
        return engine.call(() -> claims.ids(ids, dueBy, types, limits, lease));
    }

    @Override
    public List<ClaimedTask> claimedBy(String owner, long leaseAfter) {
        return engine.call(() -> claims.heldBy(owner, leaseAfter));
    }

    @Override
    public int markStarted(Collection<ClaimId> started, long now) {
        return engine.call(() -> writes.started(started, now));
    }

    @Override
    public void finish(List<Completion> completions, long now) {
        engine.call(() -> {
            writes.finished(completions, now);
            return null;
        });
    }

    @Override
    public Set<ClaimId> extendLeases(Collection<ClaimId> held, long leaseUntil) {
        return engine.call(() -> writes.renewed(held, leaseUntil));
    }

    @Override
    public void release(Map<ClaimId, TaskStatus> statusByClaim, long now) {
        engine.call(() -> {
            writes.released(statusByClaim, now);
            return null;
        });
    }

    @Override
    public List<Completion> recoverExpiredLeases(long now, int limit, Function<ExpiredLease, Completion> decision) {
        return engine.call(() -> writes.expired(now, limit, decision));
    }

    // --- migration and index rebuild --------------------------------------------------------------------------

    @Override
    public List<DueTask> migrate(long dueBy, int limit, long now) {
        return engine.call(() -> engineTx.execute(status -> {
            List<DueTask> due = engineJdbc.query(selectForMigration, TaskRows.DUE, dueBy, limit);
            if (due.isEmpty()) {
                return due;
            }
            engineJdbc.update(TaskSql.forIds(TaskSql.MARK_QUEUED, table, due.size()),
                    TaskSql.args(new Object[] { now }, due.stream().map(DueTask::id).toList()));
            return due;
        }));
    }

    @Override
    public List<DueTask> pending(TaskStatus status, DueTask after, int limit) {
        return engine.call(() -> engineJdbc.query(selectPendingPage, TaskRows.DUE, status.name(), after.dueAt(),
                after.dueAt(), after.id(), limit));
    }

    @Override
    public List<DueTask> pendingAmong(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return engine.call(() -> engineJdbc.query(TaskSql.forIds(TaskSql.SELECT_PENDING_AMONG, table, ids.size()),
                TaskRows.DUE, ids.toArray()));
    }

    @Override
    public List<DueTask> pendingAmong(Collection<Long> ids, Set<String> types) {
        if (ids.isEmpty() || types.isEmpty()) {
            return List.of();
        }
        String select = TaskSql.forIdsAndTypes(TaskSql.SELECT_PENDING_AMONG_OF_TYPES, table, ids.size(),
                types.size());
        List<Object> args = new ArrayList<>(ids);
        args.addAll(types);
        return engine.call(() -> engineJdbc.query(select, TaskRows.DUE, args.toArray()));
    }

    @Override
    public List<DueTask> pendingDue(TaskStatus status, long dueBy, int limit, Set<String> types) {
        if (limit <= 0 || types.isEmpty()) {
            return List.of();
        }
        String select = TaskSql.perType(TaskSql.DUE_OF_TYPES, TaskSql.DUE_OF_TYPE, table, typeIndex, types.size());
        List<Object> args = new ArrayList<>();
        for (String type : types) {
            args.addAll(List.of(status.name(), type, dueBy, limit));
        }
        if (types.size() > 1) {
            args.add(limit);
        }
        return engine.call(() -> engineJdbc.query(select, TaskRows.DUE, args.toArray()));
    }

    @Override
    public OptionalLong nextDue(TaskStatus status) {
        Long min = engine.call(() -> engineJdbc.queryForObject(nextDue, Long.class, status.name()));
        return min == null ? OptionalLong.empty() : OptionalLong.of(min);
    }

    @Override
    public OptionalLong nextDue(TaskStatus status, Set<String> types) {
        if (types.isEmpty()) {
            return OptionalLong.empty();
        }
        String select = TaskSql.perType(TaskSql.NEXT_DUE_OF_TYPES, TaskSql.NEXT_DUE_OF_TYPE, table, typeIndex,
                types.size());
        List<Object> args = new ArrayList<>();
        for (String type : types) {
            args.add(status.name());
            args.add(type);
        }
        List<Long> first = engine.call(() -> engineJdbc.queryForList(select, Long.class, args.toArray()));
        return first.isEmpty() ? OptionalLong.empty() : OptionalLong.of(first.get(0));
    }

    @Override
    public Set<String> pausedTypes() {
        return Set.copyOf(engine.call(() -> engineJdbc.queryForList(pausedTypes, String.class)));
    }

    @Override
    public boolean pause(String type, long now) {
        return engineJdbc.update(pause, type, now) > 0;
    }

    @Override
    public boolean resume(String type) {
        return engineJdbc.update(resume, type) > 0;
    }

    // --- user operations --------------------------------------------------------------------------------------

    @Override
    public Optional<String> cancel(long id, long now) {
        return inCallersOrOwnTransaction("cancel", on -> {
            List<String> types = on.queryForList(selectTypeForUpdate, String.class, id);
            if (types.isEmpty() || on.update(cancel, now, id) != 1) {
                return Optional.<String>empty();
            }
            return Optional.of(types.get(0));
        });
    }

    /** The key's pending task and its waiting follow-up, if any; the id of the first of them cancelled. */
    @Override
    public OptionalLong cancel(String type, String key, long now) {
        return inCallersOrOwnTransaction("cancel", on -> {
            OptionalLong first = OptionalLong.empty();
            for (long id : on.queryForList(selectIdByKeyForUpdate, Long.class, type, key, key)) {
                if (on.update(cancel, now, id) == 1 && first.isEmpty()) {
                    first = OptionalLong.of(id);
                }
            }
            return first;
        });
    }

    // --- bulk operations: pages of a type by key prefix, then writes by id, each batch autocommitted -------------

    @Override
    public List<TaskView> unstarted(String type, @Nullable String keyPrefix, @Nullable TaskView after, int limit) {
        return engine.call(() -> {
            List<TaskView> page = new ArrayList<>(limit);
            if (keyPrefix == null && (after == null || after.key() == null)) {
                page.addAll(engineJdbc.query(TaskSql.SELECT_UNSTARTED_UNKEYED.formatted(table), TaskRows.VIEW, type,
                        after == null ? 0 : after.id(), limit));
                if (page.size() == limit) {
                    return page;
                }
            }
            String prefix = keyPrefix == null ? "" : keyPrefix;
            String afterKey = after == null || after.key() == null ? "" : after.key();
            long afterId = after == null || after.key() == null ? 0 : after.id();
            page.addAll(engineJdbc.query(TaskSql.SELECT_UNSTARTED_BY_PREFIX.formatted(table), TaskRows.VIEW, type,
                    TaskSql.startsWith(prefix), afterKey, afterKey, afterId, limit - page.size()));
            return page;
        });
    }

    @Override
    public List<Long> cancelUnstarted(Collection<Long> ids, long now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        // locked first, so the answer is exactly what this call cancelled; a short transaction of at most a batch
        return engine.call(() -> engineTx.execute(status -> {
            List<Long> unstarted = engineJdbc.queryForList(
                    TaskSql.forIds(TaskSql.SELECT_UNSTARTED_FOR_UPDATE, table, ids.size()), Long.class, ids.toArray());
            if (!unstarted.isEmpty()) {
                engineJdbc.update(TaskSql.forIds(TaskSql.CANCEL_UNSTARTED, table, unstarted.size()),
                        TaskSql.args(new Object[] { now }, unstarted));
            }
            return unstarted;
        }));
    }

    @Override
    public List<TaskView> movePending(Collection<Long> ids, long dueAt, long queuedUpTo, long now) {
        return updatePending(TaskSql.MOVE_PENDING, ids, dueAt, queuedUpTo, dueAt, now);
    }

    @Override
    public List<TaskView> shiftPending(Collection<Long> ids, long shiftMillis, long queuedUpTo, long now) {
        return updatePending(TaskSql.SHIFT_PENDING, ids, shiftMillis, queuedUpTo, shiftMillis, now);
    }

    /**
     * One statement over those of {@code ids} that are pending, then those still pending as they are now. A
     * connection lost while the (autocommitted) statement was on its way leaves the outcome unknown, and so does a
     * failure of the read after it (the statement committed, but which tasks it moved is not known).
     */
    private List<TaskView> updatePending(String sql, Collection<Long> ids, Object... leading) {
        if (ids.isEmpty()) {
            return List.of();
        }
        try {
            engine.call(() -> engineJdbc.update(TaskSql.forIds(sql, table, ids.size()), TaskSql.args(leading, ids)));
        }
        catch (DataAccessException ex) {
            throw InsertProgress.connectionLost(ex) ? new WriteOutcomeUnknownException(ex) : ex;
        }
        try {
            return engine.call(() -> views(ids).stream().filter(view -> view.status().isPending()).toList());
        }
        catch (DataAccessException ex) {
            throw new WriteOutcomeUnknownException(ex); // the update committed: "nothing changed" would be false
        }
    }

    private List<TaskView> views(Collection<Long> ids) {
        return engineJdbc.query(TaskSql.forIds(TaskSql.SELECT_VIEWS, table, ids.size()), TaskRows.VIEW,
                ids.toArray());
    }

    @Override
    public List<DueTask> releaseWaiting(long queuedUpTo, int limit, long now) {
        return engine.call(() -> {
            List<DueTask> released = new ArrayList<>();
            for (DueTask waiting : engineJdbc.query(selectReleasable, TaskRows.DUE, limit)) {
                try {
                    if (engineJdbc.update(releaseWaiting, queuedUpTo, now, waiting.id()) == 1) {
                        released.add(waiting);
                    }
                }
                catch (DuplicateKeyException ex) {
                    // a live task took the key since the read: the follow-up waits for that one
                }
            }
            return released;
        });
    }

    @Override
    public boolean succeedInCallerTransaction(ClaimId claim, long now) {
        if (!joinsCallerTransaction()) {
            throw new IllegalStateException("Task " + claim.id() + " cannot complete in its handler's transaction: the "
                    + "transaction holds no connection of the queue's DataSource (its transaction manager manages "
                    + "another resource, or none is active). Give the application a JdbcTransactionManager or "
                    + "JpaTransactionManager of the queue's DataSource, or remove transactional/@Transactional from "
                    + "the handler");
        }
        return jdbc.update(TaskSql.forClaims(TaskSql.MARK_SUCCEEDED, table, 1), ClaimWrites.claimArgs(List.of(claim),
                now, now)) == 1;
    }

    /**
     * One statement: on the caller's transaction's connection when it joins one, autocommitted otherwise. A
     * connection lost while the autocommitted statement (or its commit) was on its way leaves the outcome unknown.
     */
    @Override
    public boolean reschedule(long id, long dueAt, TaskStatus status, long now) {
        Function<JdbcTemplate, Boolean> move = on -> on.update(reschedule, dueAt, status.name(), now, id) == 1;
        if (joinsCallerTransaction()) {
            return move.apply(jdbc);
        }
        return own.run("reschedule", (connection, onIt) -> {
            if (!connection.getAutoCommit()) { // a pool that hands out connections without auto-commit
                return own.inTransaction(connection, () -> move.apply(onIt));
            }
            return InsertProgress.autocommitted(connection).lastWrite(onIt, move);
        });
    }

    @Override
    public Optional<TaskView> find(long id) {
        return jdbc.query(findById, TaskRows.VIEW, id).stream().findFirst();
    }

    @Override
    public Optional<TaskView> find(String type, String key) {
        return jdbc.query(findByKey, TaskRows.VIEW, type, key).stream().findFirst();
    }

    // --- the database's clock, housekeeping -------------------------------------------------------------------

    @Override
    public long currentTimeMillis() {
        return Math.floorDiv(currentTimeMicros(), 1000);
    }

    @Override
    public long currentTimeMicros() {
        Long micros = jdbc.queryForObject(TaskSql.DATABASE_TIME, Long.class);
        if (micros == null) {
            throw new IllegalStateException("The database returned no current time");
        }
        return micros;
    }

    @Override
    public long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
        return engine.call(() -> purge.purge(changedBefore, batchSize, budgetMillis));
    }


    /**
     * On the caller's transaction's connection when it joins one ({@link CallerTransaction}); otherwise in a
     * transaction of its own on a connection of its own ({@link OwnConnection}), whatever is bound to the thread.
     * Never through a transaction manager of the DataSource: inside a JPA transaction it would see no transaction of
     * its own, take the JPA transaction's connection as its own, and commit it.
     */
    private <T> T inCallersOrOwnTransaction(String task, Function<JdbcTemplate, T> work) {
        if (joinsCallerTransaction()) {
            return work.apply(jdbc);
        }
        return own.run(task, (connection, onIt) -> own.inTransaction(connection, () -> work.apply(onIt)));
    }
}
