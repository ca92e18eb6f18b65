package io.github.delayqueue.store;

import java.util.Collection;
import java.util.List;

import io.github.delayqueue.api.TaskStatus;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Takes claims: locks due rows with {@code FOR UPDATE SKIP LOCKED}, so instances claiming at the same time take
 * disjoint rows instead of waiting for each other, and moves them to {@code RUNNING} with the next claim number, in
 * one transaction on the {@link ClaimConnection}.
 */
final class TaskClaims {

    private final ClaimConnection connection;

    private final JdbcTemplate jdbc;

    private final String table;

    private final String selectDue;

    private final String selectClaimedBy;

    /** @param table the quoted table name */
    TaskClaims(ClaimConnection connection, JdbcTemplate jdbc, String table) {
        this.connection = connection;
        this.jdbc = jdbc;
        this.table = table;
        this.selectDue = TaskSql.SELECT_DUE_FOR_CLAIM.formatted(table);
        this.selectClaimedBy = TaskSql.SELECT_CLAIMED_BY.formatted(table);
    }

    /** See {@link TaskStore#claimDue}. */
    List<ClaimedTask> due(TaskStatus status, long dueBy, int limit, Lease lease) {
        if (limit <= 0) {
            return List.of();
        }
        return connection.inTransaction(
                t -> markRunning(t, t.query(selectDue, TaskRows.JUST_CLAIMED, status.name(), dueBy, limit), lease));
    }

    /** See {@link TaskStore#claimDue(TaskStatus, long, int, java.util.Set, Lease)}. */
    List<ClaimedTask> due(TaskStatus status, long dueBy, int limit, Collection<String> types, Lease lease) {
        if (limit <= 0 || types.isEmpty()) {
            return List.of();
        }
        String select = TaskSql.SELECT_DUE_OF_TYPES_FOR_CLAIM.formatted(table, TaskSql.placeholders(types.size()));
        Object[] args = new Object[types.size() + 3];
        args[0] = status.name();
        args[1] = dueBy;
        int p = 2;
        for (String type : types) {
            args[p++] = type;
        }
        args[p] = limit;
        return connection.inTransaction(t -> markRunning(t, t.query(select, TaskRows.JUST_CLAIMED, args), lease));
    }

    /** See {@link TaskStore#claimIds(Collection, long, java.util.Set, Lease)}. */
    List<ClaimedTask> ids(Collection<Long> ids, long dueBy, Collection<String> types, Lease lease) {
        if (ids.isEmpty() || types.isEmpty()) {
            return List.of();
        }
        String select = TaskSql.forIdsAndTypes(TaskSql.SELECT_IDS_OF_TYPES_FOR_CLAIM, table, ids.size(), types.size());
        Object[] args = TaskSql.args(new Object[0], ids, dueBy);
        Object[] all = new Object[args.length + types.size()];
        System.arraycopy(args, 0, all, 0, args.length);
        int p = args.length;
        for (String type : types) {
            all[p++] = type;
        }
        return connection.inTransaction(t -> markRunning(t, t.query(select, TaskRows.JUST_CLAIMED, all), lease));
    }

    /** See {@link TaskStore#claimIds}. */
    List<ClaimedTask> ids(Collection<Long> ids, long dueBy, Lease lease) {
        if (ids.isEmpty()) {
            return List.of();
        }
        String select = TaskSql.forIds(TaskSql.SELECT_IDS_FOR_CLAIM, table, ids.size());
        Object[] args = TaskSql.args(new Object[0], ids, dueBy);
        return connection.inTransaction(t -> markRunning(t, t.query(select, TaskRows.JUST_CLAIMED, args), lease));
    }

    /** See {@link TaskStore#claimedBy}: read on a pooled connection, these rows were claimed already. */
    List<ClaimedTask> heldBy(String owner, long leaseAfter) {
        return jdbc.query(selectClaimedBy, TaskRows.CLAIMED_BEFORE, owner, leaseAfter);
    }

    /** The selected rows are locked by this transaction, so the compare-and-set below wins every one of them. */
    private List<ClaimedTask> markRunning(JdbcTemplate jdbc, List<ClaimedTask> locked, Lease lease) {
        if (locked.isEmpty()) {
            return locked;
        }
        Object[] args = TaskSql.args(new Object[] { lease.owner(), lease.until(), lease.now() },
                locked.stream().map(ClaimedTask::id).toList());
        int updated = jdbc.update(TaskSql.forIds(TaskSql.MARK_RUNNING, table, locked.size()), args);
        if (updated != locked.size()) {
            throw new IllegalStateException("Claimed " + updated + " of " + locked.size() + " locked rows");
        }
        return locked;
    }

    /** Gives the claim connection back to the pool; the next claim takes a new one. */
    void giveBack() {
        connection.giveBack();
    }
}
