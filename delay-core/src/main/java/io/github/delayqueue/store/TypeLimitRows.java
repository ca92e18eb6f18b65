package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
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
 * across instances: a claim of the same type elsewhere skips the type while this one holds it, and counts this one's
 * tasks once it committed.
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
     * Rows already there are found by a plain read first, as an insert of one would wait for a claim that holds it.
     */
    void add(Set<String> types) {
        List<String> unknown = types.stream().filter(type -> !added.contains(type)).sorted().toList();
        if (unknown.isEmpty()) {
            return;
        }
        added.addAll(autocommit.queryForList(TaskSql.TYPE_LIMITS_THERE.formatted(limitsTable,
                TaskSql.placeholders(unknown.size())), String.class, unknown.toArray()));
        List<String> missing = unknown.stream().filter(type -> !added.contains(type)).toList();
        if (!missing.isEmpty()) {
            autocommit.update(TaskSql.ADD_TYPE_LIMIT.formatted(limitsTable,
                    String.join(", ", Collections.nCopies(missing.size(), "(?, 0, 0)"))), missing.toArray());
            added.addAll(missing);
        }
    }

    /**
     * Locks the rows of the limited types and returns, per type, how many more a claim may take now: its running
     * limit less what runs of it, and its per-second limit less what claims took of it this second. A type whose
     * row is missing gets none (and its row is added again before the next claim).
     */
    Map<String, Room> room(JdbcTemplate tx, Map<String, TypeLimit> limits, long now) {
        List<String> types = new ArrayList<>(new TreeSet<>(limits.keySet()));
        Map<String, Window> windows = new HashMap<>();
        long second = Math.floorDiv(now, 1000) * 1000;
        tx.query(TaskSql.LOCK_TYPE_LIMITS.formatted(limitsTable, TaskSql.placeholders(types.size())), rs -> {
            windows.put(rs.getString(1), Window.of(now, rs.getLong(2), rs.getInt(3)));
        }, types.toArray());
        if (windows.size() < types.size()) {
            forgetMissing(tx, types, windows.keySet());
        }
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
            Window window = windows.get(type);
            if (window == null) {
                result.put(type, new Room(limit, 0, 0, second, false)); // another claim's turn: none this time
                return;
            }
            long left = Integer.MAX_VALUE;
            if (limit.running() > 0) {
                left = Math.min(left, limit.running() - running.getOrDefault(type, 0));
            }
            if (limit.startsPerSecond() > 0) {
                left = Math.min(left, limit.startsPerSecond() - window.started());
            }
            result.put(type, new Room(limit, (int) Math.max(0, left), window.started(), window.second(), true));
        });
        return result;
    }

    /**
     * The second a claim counts its starts in ({@link TypeLimit#countingSecond}: the row's, when it is this claim's or
     * a little later), and how many claims took in it before. Counting a row a little ahead afresh from an earlier
     * second let claims that alternate across a second's boundary each take the whole limit (a backlog of 12 at 4 a
     * second started in 144 ms on two instances).
     */
    private record Window(long second, int started) {

        static Window of(long now, long rowSecond, int rowStarted) {
            long second = TypeLimit.countingSecond(now, rowSecond);
            return new Window(second, second == rowSecond ? rowStarted : 0);
        }
    }

    /**
     * Of the types whose row the lock skipped, forgets those without a row, so that the next claim adds it; the others
     * are another claim's now. A plain read: an insert here would wait for that claim's lock.
     */
    private void forgetMissing(JdbcTemplate tx, List<String> types, Set<String> locked) {
        List<String> skipped = types.stream().filter(type -> !locked.contains(type)).toList();
        Set<String> there = new HashSet<>(tx.queryForList(
                TaskSql.TYPE_LIMITS_THERE.formatted(limitsTable, TaskSql.placeholders(skipped.size())), String.class,
                skipped.toArray()));
        skipped.stream().filter(type -> !there.contains(type)).forEach(added::remove);
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
     * @param startedThisSecond how many claims took in {@code second}
     * @param second the second (epoch milliseconds) they count in: this claim's, or a later one another claim counted
     *        in
     * @param counted whether this claim locked the type's row and counted; {@code false} while another claim holds it
     */
    record Room(TypeLimit limit, int left, int startedThisSecond, long second, boolean counted) {
    }
}
