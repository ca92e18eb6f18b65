package io.github.delayqueue.test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.TaskInspector;
import io.github.delayqueue.test.InMemoryTaskStore.Row;

import org.springframework.dao.DuplicateKeyException;

/**
 * {@link TaskInspector} on the rows of an {@link InMemoryTaskStore}, read as the JDBC inspector
 * ({@link TaskInspector#jdbc}) reads the table (the same samples, the same rows counted), except that every count is
 * exact: a table in memory has no estimates. Tests that need an estimate override the method that gives it.
 */
public class InMemoryTaskInspector implements TaskInspector {

    private static final Set<TaskStatus> RAN_ONCE = Set.of(TaskStatus.RUNNING, TaskStatus.SUCCEEDED,
            TaskStatus.FAILED);

    private final InMemoryTaskStore store;

    public InMemoryTaskInspector(InMemoryTaskStore store) {
        this.store = store;
    }

    @Override
    public Map<TaskStatus, Count> countByStatus(Set<TaskStatus> statuses) {
        return store.locked(rows -> {
            Map<TaskStatus, Count> counts = new EnumMap<>(TaskStatus.class);
            for (TaskStatus status : statuses) {
                counts.put(status, Count.exact(rows.stream().filter(row -> row.status == status).count()));
            }
            return counts;
        });
    }

    @Override
    public List<TypeCount> countByTypeAndStatus(Set<TaskStatus> statuses, int perStatus) {
        return store.locked(rows -> {
            List<TypeCount> counts = new ArrayList<>();
            for (TaskStatus status : statuses) {
                Map<String, Long> byType = new TreeMap<>();
                rows.stream()
                    .filter(row -> row.status == status)
                    .sorted((a, b) -> a.dueAt != b.dueAt ? Long.compare(a.dueAt, b.dueAt) : Long.compare(a.id, b.id))
                    .limit(perStatus)
                    .forEach(row -> byType.merge(row.type, 1L, Long::sum));
                byType.forEach((type, count) -> counts.add(new TypeCount(type, status, count)));
            }
            return counts;
        });
    }

    @Override
    public Overdue overdue(long dueBefore) {
        return store.locked(rows -> {
            List<Long> due = rows.stream()
                .filter(row -> row.status.isPending() && row.dueAt < dueBefore)
                .map(row -> row.dueAt)
                .toList();
            return new Overdue(Count.exact(due.size()), due.isEmpty() ? null : Collections.min(due));
        });
    }

    @Override
    public Overdue overdueOfOtherTypes(long dueBefore, Set<String> types) {
        return store.locked(rows -> {
            List<Long> due = rows.stream()
                .filter(row -> row.status.isPending() && row.dueAt < dueBefore && !types.contains(row.type))
                .map(row -> row.dueAt)
                .toList();
            return new Overdue(Count.exact(due.size()), due.isEmpty() ? null : Collections.min(due));
        });
    }

    @Override
    public CumulativeCounts requestedDelays(List<Long> boundsMillis, int sample) {
        return store.locked(rows -> {
            long maxId = rows.stream().mapToLong(row -> row.id).max().orElse(Long.MIN_VALUE);
            // the ids of the most recent tasks, then only those whose due time is still the one requested
            List<Long> delays = rows.stream()
                .filter(row -> row.id > maxId - sample)
                .filter(row -> row.attempts == 0 || row.attempts == 1 && RAN_ONCE.contains(row.status))
                .map(row -> row.dueAt - row.createdAt)
                .toList();
            return cumulative(delays, boundsMillis, 0);
        });
    }

    @Override
    public CumulativeCounts pendingDueWithin(long now, List<Long> boundsMillis) {
        return store.locked(rows -> cumulative(
                rows.stream().filter(row -> row.status.isPending()).map(row -> row.dueAt).toList(), boundsMillis,
                now));
    }

    private static CumulativeCounts cumulative(Collection<Long> values, List<Long> bounds, long origin) {
        List<Long> atOrBelow = new ArrayList<>(bounds.size());
        for (long bound : bounds) {
            atOrBelow.add(values.stream().filter(value -> value <= origin + bound).count());
        }
        return new CumulativeCounts(values.size(), List.copyOf(atOrBelow));
    }

    @Override
    public List<Long> parked(String type, long afterId, int limit) {
        return store.locked(rows -> rows.stream()
            .filter(row -> row.status == TaskStatus.PARKED && row.type.equals(type) && row.id > afterId)
            .map(row -> row.id)
            .sorted()
            .limit(limit)
            .toList());
    }

    @Override
    public boolean rerunFailed(long id, TaskStatus status, long dueAt, long now) {
        if (!status.isPending()) {
            throw new IllegalArgumentException("A re-run task must become pending, not " + status);
        }
        return store.locked(rows -> {
            for (Row row : rows) {
                if (row.id == id && (row.status == TaskStatus.FAILED || row.status == TaskStatus.PARKED)) {
                    Row holder = row.key == null ? null : store.keyHolder(row.type, row.key);
                    if (holder != null) { // what the unique index on live_key refuses
                        throw new DuplicateKeyException("Duplicate entry '" + row.type + "-" + row.key
                                + "' for key 'live_key'");
                    }
                    row.status = status;
                    row.dueAt = dueAt;
                    row.attempts = 0;
                    row.owner = null;
                    row.leaseUntil = null;
                    row.startedAt = null;
                    row.updatedAt = now;
                    return true;
                }
            }
            return false;
        });
    }
}
