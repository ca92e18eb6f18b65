package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The cluster-wide limits inside a claim's transaction: locks each limited type's row of {@code <table>_type_limits},
 * counts what runs of the type on every instance, and says how many more a claim may take ({@link #room}); then
 * records the starts it took for a per-second limit ({@link #took}). The lock makes the count and the claim one step
 * across instances: a claim of the same type elsewhere waits for this one's commit, then counts its tasks.
 */
final class TypeLimitRows {

    private static final TypeLimit NONE = new TypeLimit(0, 0);

    private final String limitsTable;

    private final String tasksTable;

    private final JdbcTemplate autocommit;

    /** The types whose row this store has seen created; the row is never deleted. */
    private final Set<String> added = ConcurrentHashMap.newKeySet();

    /**
     * @param limitsTable the quoted {@code <table>_type_limits}
     * @param tasksTable the quoted task table
     * @param autocommit a template on pooled connections, for adding rows outside the claim's transaction
     */
    TypeLimitRows(String limitsTable, String tasksTable, JdbcTemplate autocommit) {
        this.limitsTable = limitsTable;
        this.tasksTable = tasksTable;
        this.autocommit = autocommit;
    }

    /**
     * Adds the rows of types claimed for the first time, in a statement of its own: inside the claim's transaction
     * the insert's shared lock on a row that exists would meet the {@code FOR UPDATE} of another claim in a deadlock.
     */
    void add(Set<String> types) {
        List<String> missing = types.stream().filter(type -> !added.contains(type)).sorted().toList();
        if (missing.isEmpty()) {
            return;
        }
        Object[] args = new Object[missing.size()];
        missing.toArray(args);
        autocommit.update(TaskSql.ADD_TYPE_LIMIT.formatted(limitsTable,
                String.join(", ", Collections.nCopies(missing.size(), "(?, 0, 0)"))), args);
        added.addAll(missing);
    }

    /**
     * Locks the rows of the limited types and returns, per type, how many more a claim may take now: its running
     * limit less what runs of it, and its per-second limit less what claims took of it this second. A type whose
     * row is missing gets none (and its row is added again before the next claim).
     */
    Map<String, Room> room(JdbcTemplate tx, Map<String, TypeLimit> limits, long now) {
        List<String> types = new ArrayList<>(new TreeSet<>(limits.keySet()));
        Map<String, Integer> startedThisSecond = new HashMap<>();
        long second = Math.floorDiv(now, 1000) * 1000;
        tx.query(TaskSql.LOCK_TYPE_LIMITS.formatted(limitsTable, TaskSql.placeholders(types.size())), rs -> {
            startedThisSecond.put(rs.getString(1), rs.getLong(2) == second ? rs.getInt(3) : 0);
        }, types.toArray());
        added.removeIf(type -> limits.containsKey(type) && !startedThisSecond.containsKey(type));
        List<String> counted = types.stream().filter(type -> limits.getOrDefault(type, NONE).running() > 0).toList();
        Map<String, Integer> running = new HashMap<>();
        if (!counted.isEmpty()) {
            Object[] args = new Object[counted.size() + 1];
            for (int i = 0; i < counted.size(); i++) {
                args[i] = counted.get(i);
            }
            args[counted.size()] = now;
            tx.query(TaskSql.COUNT_RUNNING_OF_TYPES.formatted(tasksTable, TaskSql.placeholders(counted.size())),
                    rs -> {
                        running.put(rs.getString(1), rs.getInt(2));
                    }, args);
        }
        Map<String, Room> result = new HashMap<>();
        limits.forEach((type, limit) -> {
            Integer started = startedThisSecond.get(type);
            if (started == null) {
                result.put(type, new Room(limit, 0, 0, second)); // no row to lock: none this time
                return;
            }
            long left = Integer.MAX_VALUE;
            if (limit.running() > 0) {
                left = Math.min(left, limit.running() - running.getOrDefault(type, 0));
            }
            if (limit.startsPerSecond() > 0) {
                left = Math.min(left, limit.startsPerSecond() - started);
            }
            result.put(type, new Room(limit, (int) Math.max(0, left), started, second));
        });
        return result;
    }

    /** Counts {@code taken} tasks of {@code type} claimed this second, for its per-second limit. */
    void took(JdbcTemplate tx, String type, Room room, int taken) {
        if (taken > 0 && room.limit().startsPerSecond() > 0) {
            tx.update(TaskSql.COUNT_STARTS.formatted(limitsTable), room.second(), room.startedThisSecond() + taken,
                    type);
        }
    }

    /**
     * @param limit the type's limits
     * @param left how many more of the type a claim may take now
     * @param startedThisSecond how many claims took this second
     * @param second the second (epoch milliseconds) they count in
     */
    record Room(TypeLimit limit, int left, int startedThisSecond, long second) {
    }
}
