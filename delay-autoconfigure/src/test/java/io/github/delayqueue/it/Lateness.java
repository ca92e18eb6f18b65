package io.github.delayqueue.it;

import java.util.Collection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Assertions on when tasks started relative to their due time, from the {@link Journal}. */
final class Lateness {

    private Lateness() {
    }

    /** Every task in {@code ids} started exactly once, never before its due time, and at most {@code bound} late. */
    static void assertOnceAndOnTime(Journal journal, Collection<Long> ids, long boundMillis) {
        for (long id : ids) {
            List<Journal.Start> starts = journal.startsOf(id);
            assertThat(starts).as("starts of task %d", id).hasSize(1);
            Journal.Start start = starts.get(0);
            assertThat(start.startedAt()).as("task %d start vs due", id).isGreaterThanOrEqualTo(start.dueAt());
            assertThat(start.startedAt() - start.dueAt()).as("lateness of task %d in ms", id)
                .isLessThanOrEqualTo(boundMillis);
        }
    }
}
