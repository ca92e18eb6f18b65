package io.github.delayqueue.reliability;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

import io.github.delayqueue.it.Journal;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The four promises every fault scenario is judged by, from the {@link Journal}: no task lost, no task started while
 * an earlier start of it was still running, none started before its due time, and each finished within a bound.
 */
final class Verdict {

    private Verdict() {
    }

    /**
     * @param ids every task the scenario scheduled
     * @param firstStartBoundMillis how late the first start may be after the due time
     * @param toleranceMillis how early a start may be (clock reading granularity, skew tolerance)
     */
    static void assertKept(Journal journal, Collection<Long> ids, long firstStartBoundMillis, long toleranceMillis) {
        List<String> problems = new ArrayList<>();
        for (long id : ids) {
            List<Journal.Start> starts = new ArrayList<>(journal.startsOf(id));
            if (starts.isEmpty()) {
                problems.add("task " + id + " never started");
                continue;
            }
            starts.sort(Comparator.comparingLong(Journal.Start::startedAt));
            Journal.Start first = starts.get(0);
            if (first.startedAt() < first.dueAt() - toleranceMillis) {
                problems.add("task " + id + " started " + (first.dueAt() - first.startedAt()) + " ms early");
            }
            if (first.startedAt() - first.dueAt() > firstStartBoundMillis) {
                problems.add("task " + id + " first started " + (first.startedAt() - first.dueAt()) + " ms late");
            }
            for (int i = 1; i < starts.size(); i++) {
                Journal.Start earlier = starts.get(i - 1);
                Journal.Start later = starts.get(i);
                if (later.startedAt() < earlier.endedAt()) {
                    problems.add("task " + id + " started on " + later.instance() + " while its start on "
                            + earlier.instance() + " was still running");
                }
            }
            if (problems.size() > 20) {
                break;
            }
        }
        assertThat(problems).as("broken promises").isEmpty();
    }
}
