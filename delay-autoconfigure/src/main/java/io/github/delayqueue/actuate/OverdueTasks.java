package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.Set;

import io.github.delayqueue.store.TaskInspector;

/**
 * What counts as overdue, in one place for the gauge, the health indicator and the endpoint: a pending task more
 * than a second past its due time. A task that fell due a moment ago is about to be picked up (the index wakes a
 * consumer within milliseconds, the database poll within its interval), so counting it would make every busy queue
 * look late.
 */
final class OverdueTasks {

    static final Duration GRACE = Duration.ofSeconds(1);

    private OverdueTasks() {
    }

    static TaskInspector.Overdue read(TaskInspector inspector, long now) {
        return inspector.overdue(now - GRACE.toMillis());
    }

    /** The overdue tasks of types other than {@code served}: what an instance serving those never claims. */
    static TaskInspector.Overdue unserved(TaskInspector inspector, long now, Set<String> served) {
        return inspector.overdueOfOtherTypes(now - GRACE.toMillis(), served);
    }

    /** How long ago the oldest overdue task fell due, or zero when none is overdue. */
    static Duration oldestAge(TaskInspector.Overdue overdue, long now) {
        Long oldest = overdue.oldestDueAt();
        return oldest == null ? Duration.ZERO : Duration.ofMillis(Math.max(0, now - oldest));
    }
}
