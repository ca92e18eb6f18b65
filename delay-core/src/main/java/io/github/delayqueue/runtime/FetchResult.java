package io.github.delayqueue.runtime;

import java.util.List;

import io.github.delayqueue.store.ClaimedTask;

/**
 * What one look for work found: the tasks claimed, and when to look again if there were none.
 *
 * @param tasks tasks claimed for this instance
 * @param nextAt queue time at which to look again when {@code tasks} is empty
 */
record FetchResult(List<ClaimedTask> tasks, long nextAt) {
}
