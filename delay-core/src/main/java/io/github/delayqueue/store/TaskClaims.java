package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
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

    private final String typeIndex;

    private final String selectDue;

    private final String selectClaimedBy;

    private final TypeLimitRows limitRows;

    /**
     * @param table the quoted table name
     * @param typeIndex the quoted name of its {@code (status, task_type, due_at)} index
     * @param limitsTable the quoted name of its {@code <table>_type_limits}
     */
    TaskClaims(ClaimConnection connection, JdbcTemplate jdbc, String table, String typeIndex, String limitsTable) {
        this.connection = connection;
        this.jdbc = jdbc;
        this.table = table;
        this.typeIndex = typeIndex;
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

    /** See {@link TaskStore#claimDue(TaskStatus, long, int, java.util.Set, Lease)}: each type may fill the claim. */
    List<ClaimedTask> due(TaskStatus status, long dueBy, int limit, Collection<String> types, Lease lease) {
        Map<String, Integer> caps = new LinkedHashMap<>();
        types.forEach(type -> caps.put(type, limit));
        return due(status, dueBy, limit, caps, lease);
    }

    /**
     * Claims up to {@code limit} tasks of the types in {@code caps} due by {@code dueBy}, the oldest first, and of each
     * type no more than its cap: one range of the {@code (status, task_type, due_at)} index per type, so the overdue
     * rows of types left out are never read ({@link TaskSql#SELECT_DUE_OF_TYPES_FOR_CLAIM}). A type's part locks up to
     * its cap (at most {@code limit}) even when older rows of other types fill the claim; those it does not claim stay
     * locked until the commit, which ends this call.
     */
    List<ClaimedTask> due(TaskStatus status, long dueBy, int limit, Map<String, Integer> caps, Lease lease) {
        if (limit <= 0) {
            return List.of();
        }
        return connection.inTransaction(t -> markRunning(t, selectDue(t, status, dueBy, limit, caps), lease));
    }

    /**
     * See {@link TaskStore#claimDue(TaskStatus, long, int, Set, ClaimLimits, Lease)}: in one transaction, the limited
     * types' rooms ({@link TypeLimitRows}), then one claim of all the types, each limited one capped at its room.
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
        return connection.inTransaction(t -> {
            Map<String, TypeLimitRows.Room> room = limitRows.room(t, limited, lease.now());
            Map<String, Integer> caps = new LinkedHashMap<>();
            for (String type : types) {
                TypeLimitRows.Room left = room.get(type);
                caps.put(type, left == null ? limit : left.left());
            }
            List<ClaimedTask> claimed = selectDue(t, status, dueBy, limit, caps);
            Map<String, Integer> taken = new HashMap<>();
            claimed.forEach(task -> taken.merge(task.type(), 1, Integer::sum));
            room.forEach((type, left) -> tookOf(t, limits, type, left, taken.getOrDefault(type, 0)));
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
        Object[] all = idsArgs(ids, dueBy, types);
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
                // else: beyond the room, or the type is another claim's now; locked until the commit, then pending
            }
            room.forEach((type, left) -> tookOf(t, limits, type, left, taken.getOrDefault(type, 0)));
            return markRunning(t, claimed, lease);
        });
    }

    private static Object[] idsArgs(Collection<Long> ids, long dueBy, Collection<String> types) {
        Object[] args = TaskSql.args(new Object[0], ids, dueBy);
        Object[] all = new Object[args.length + types.size()];
        System.arraycopy(args, 0, all, 0, args.length);
        int p = args.length;
        for (String type : types) {
            all[p++] = type;
        }
        return all;
    }

    /**
     * Counts the starts a claim took of a limited type, and says when it could take no more of it now: it took all
     * the type's room, or another claim held the type's turn (which a source must not read as "none left").
     */
    private void tookOf(JdbcTemplate t, ClaimLimits limits, String type, TypeLimitRows.Room room, int taken) {
        limitRows.took(t, type, room, taken);
        if (!room.counted() || taken == room.left()) {
            limits.reached(type);
        }
    }

    /** The locking read of {@link #due(TaskStatus, long, int, Map, Lease)}, in the caller's transaction. */
    private List<ClaimedTask> selectDue(JdbcTemplate t, TaskStatus status, long dueBy, int limit,
            Map<String, Integer> caps) {
        List<Object> args = new ArrayList<>();
        caps.forEach((type, cap) -> {
            if (cap > 0) {
                args.addAll(List.of(status.name(), type, dueBy, Math.min(cap, limit)));
            }
        });
        int types = args.size() / 4;
        if (types == 0) {
            return List.of();
        }
        if (types > 1) {
            args.add(limit);
        }
        String select = TaskSql.perType(TaskSql.SELECT_DUE_OF_TYPES_FOR_CLAIM, TaskSql.SELECT_DUE_OF_TYPE_FOR_CLAIM,
                table, typeIndex, types);
        return t.query(select, TaskRows.JUST_CLAIMED, args.toArray());
    }

    /** See {@link TaskStore#claimIds(Collection, long, java.util.Set, Lease)}. */
    List<ClaimedTask> ids(Collection<Long> ids, long dueBy, Collection<String> types, Lease lease) {
        if (ids.isEmpty() || types.isEmpty()) {
            return List.of();
        }
        String select = TaskSql.forIdsAndTypes(TaskSql.SELECT_IDS_OF_TYPES_FOR_CLAIM, table, ids.size(), types.size());
        Object[] all = idsArgs(ids, dueBy, types);
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
