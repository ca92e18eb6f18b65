package io.github.delayqueue.index;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one atomic pop took from a shard, and when the shard's next entry falls due.
 *
 * @param ids the ids taken, already removed from the index
 * @param nextDue the due time of the shard's new head, or {@code null} when the shard is empty
 */
public record Popped(List<Long> ids, @Nullable Long nextDue) {
}
