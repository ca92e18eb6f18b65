package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    private final TypeLimitRows limitRows;

    /**
     * @param table the quoted table name
     * @param limitsTable the quoted name of its {@code <table>_type_limits}
     */
    TaskClaims(ClaimConnection connection, JdbcTemplate jdbc, String table, String limitsTable) {
        this.connection = connection;
        this.jdbc = jdbc;
        this.table = table;
        this.limitRows = new TypeLimitRows(limitsTable, table, jdbc);
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
        Object[] args = dueArgs(status, dueBy, types, limit);
        return connection.inTransaction(t -> markRunning(t, t.query(select, TaskRows.JUST_CLAIMED, args), lease));
    }

    /**
     * See {@link TaskStore#claimDue(TaskStatus, long, int, Set, ClaimLimits, Lease)}: the limited types first, each up
     * to the room its limits leave, then the others with what is left of {@code limit}, in one transaction.
     */
    List<ClaimedTask> due(TaskStatus status, long dueBy, int limit, Set<String> types, ClaimLimits limits,
            Lease lease) {
        Map<String, TypeLimit> limited = limits.of(types);
        if (limited.isEmpty()) {
            return due(status, dueBy, limit, types, lease);
        }
        if (limit <= 0) {
            return List.of();
        }
        limitRows.add(limited.keySet());
        Set<String> others = new LinkedHashSet<>(types);
        others.removeAll(limited.keySet());
        return connection.inTransaction(t -> {
            Map<String, TypeLimitRows.Room> room = limitRows.room(t, limited, lease.now());
            List<ClaimedTask> claimed = new ArrayList<>();
            for (Map.Entry<String, TypeLimitRows.Room> entry : room.entrySet()) {
                String type = entry.getKey();
                int left = entry.getValue().left();
                int take = Math.min(left, limit - claimed.size());
                List<ClaimedTask> taken = take <= 0 ? List.of() : t.query(
                        TaskSql.SELECT_DUE_OF_TYPES_FOR_CLAIM.formatted(table, TaskSql.placeholders(1)),
                        TaskRows.JUST_CLAIMED, status.name(), dueBy, type, take);
                claimed.addAll(taken);
                limitRows.took(t, type, entry.getValue(), taken.size());
                if (taken.size() == left) {
                    limits.reached(type);
                }
            }
            if (!others.isEmpty() && claimed.size() < limit) {
                claimed.addAll(t.query(
                        TaskSql.SELECT_DUE_OF_TYPES_FOR_CLAIM.formatted(table, TaskSql.placeholders(others.size())),
                        TaskRows.JUST_CLAIMED, dueArgs(status, dueBy, others, limit - claimed.size())));
            }
            claimed.sort(Comparator.comparingLong(ClaimedTask::dueAt));
            return markRunning(t, claimed, lease);
        });
    }

    /**
     * See {@link TaskStore#claimIds(Collection, long, Set, ClaimLimits, Lease)}: locks the pending rows among
     * {@code ids}, then claims of each limited type only the earliest due its room allows; the rest stay pending.
     */
    List<ClaimedTask> ids(Collection<Long> ids, long dueBy, Set<String> types, ClaimLimits limits, Lease lease) {
        Map<String, TypeLimit> limited = limits.of(types);
        if (limited.isEmpty()) {
            return ids(ids, dueBy, types, lease);
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        limitRows.add(limited.keySet());
        String select = TaskSql.forIdsAndTypes(TaskSql.SELECT_IDS_OF_TYPES_FOR_CLAIM, table, ids.size(), types.size());
        Object[] args = TaskSql.args(new Object[0], ids, dueBy);
        Object[] all = new Object[args.length + types.size()];
        System.arraycopy(args, 0, all, 0, args.length);
        int p = args.length;
        for (String type : types) {
            all[p++] = type;
        }
        return connection.inTransaction(t -> {
            Map<String, TypeLimitRows.Room> room = limitRows.room(t, limited, lease.now());
            List<ClaimedTask> locked = new ArrayList<>(t.query(select, TaskRows.JUST_CLAIMED, all));
            locked.sort(Comparator.comparingLong(ClaimedTask::dueAt));
            Map<String, Integer> taken = new HashMap<>();
            List<ClaimedTask> claimed = new ArrayList<>(locked.size());
            for (ClaimedTask task : locked) {
                TypeLimitRows.Room left = room.get(task.type());
                if (left == null) {
                    claimed.add(task);
                    continue;
                }
                int count = taken.getOrDefault(task.type(), 0);
                if (count < left.left()) {
                    claimed.add(task);
                    taken.put(task.type(), count + 1);
                }
                else {
                    limits.reached(task.type()); // locked until the commit, then pending again
                }
            }
            for (Map.Entry<String, TypeLimitRows.Room> entry : room.entrySet()) {
                int count = taken.getOrDefault(entry.getKey(), 0);
                limitRows.took(t, entry.getKey(), entry.getValue(), count);
                if (entry.getValue().left() == 0 || count == entry.getValue().left()) {
                    limits.reached(entry.getKey());
                }
            }
            return markRunning(t, claimed, lease);
        });
    }

    private static Object[] dueArgs(TaskStatus status, long dueBy, Collection<String> types, int limit) {
        Object[] args = new Object[types.size() + 3];
        args[0] = status.name();
        args[1] = dueBy;
        int p = 2;
        for (String type : types) {
            args[p++] = type;
        }
        args[p] = limit;
        return args;
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
