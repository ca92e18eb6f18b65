package io.github.delayqueue.runtime;

import java.util.List;

import io.github.delayqueue.store.ClaimedTask;

/**
 * What one look for work found: the tasks claimed, and when to look again if they did not fill the look's limit.
 *
 * @param tasks tasks claimed for this instance
 * @param nextAt queue time at which to look again when {@code tasks} is fewer than the look asked for (a look that
 *     filled its limit may have left due tasks behind, and the next one comes at once)
 */
record FetchResult(List<ClaimedTask> tasks, long nextAt) {
}
