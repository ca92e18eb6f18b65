package io.github.delayqueue.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;

/**
 * {@code hybrid} mode: pops due ids from the time index, visiting the shards in turn, and claims them with the
 * database's compare-and-set; ids whose rows were already taken are dropped and counted. It sleeps until the earliest
 * shard head it has seen (or {@code max-wait}). Every {@code sweep-interval} it also claims rows still pending past
 * the sweep grace, which the index lost; while the index is unreachable it claims due rows from the database alone.
 */
public final class IndexTaskSource implements TaskSource {

    private final Indexer indexer;

    private final TaskStore store;

    private final Claims claims;

    private final TaskEvents events;

    private final long maxWaitMillis;

    private final long sweepGraceMillis;

    private final long sweepIntervalMillis;

    private final long pollMillis;

    private final long[] shardHeads;

    private int firstShard;

    private long nextSweepAt;

    public IndexTaskSource(Indexer indexer, TaskStore store, Claims claims, TaskEvents events, long maxWaitMillis,
            long sweepGraceMillis, long sweepIntervalMillis, long pollMillis) {
        this.indexer = indexer;
        this.store = store;
        this.claims = claims;
        this.events = events;
        this.maxWaitMillis = maxWaitMillis;
        this.sweepGraceMillis = sweepGraceMillis;
        this.sweepIntervalMillis = sweepIntervalMillis;
        this.pollMillis = pollMillis;
        this.shardHeads = new long[indexer.index().shards()];
        Arrays.fill(shardHeads, Long.MAX_VALUE);
    }

    @Override
    public Fetch fetch(long now, int limit) {
        List<ClaimedTask> claimed = new ArrayList<>();
        if (now >= nextSweepAt) {
            nextSweepAt = now + sweepIntervalMillis;
            int swept = claimPending(now - sweepGraceMillis, limit, now, claimed);
            if (swept > 0) {
                events.recovered(TaskEvents.RecoveryReason.SWEEP, swept);
            }
            if (swept == limit) {
                nextSweepAt = now; // a backlog (Redis was flushed, say): keep sweeping until it is drained
            }
        }
        if (!indexer.available()) {
            claimPending(now, limit - claimed.size(), now, claimed);
            return new Fetch(claimed, Math.min(now + pollMillis, nextSweepAt));
        }
        List<Long> popped = popDue(now, limit - claimed.size());
        if (!popped.isEmpty()) {
            List<ClaimedTask> won;
            try {
                won = store.claimIds(popped, now, claims.at(now));
            }
            catch (RuntimeException ex) {
                // Put them back, due now, rather than leave them to the sweep grace.
                indexer.add(popped.stream().map(id -> new DueTask(id, now)).toList());
                throw ex;
            }
            if (won.size() < popped.size()) {
                events.claimConflicts(popped.size() - won.size());
            }
            claimed.addAll(won);
        }
        long nextAt = Math.min(now + maxWaitMillis, nextSweepAt);
        for (long head : shardHeads) {
            nextAt = Math.min(nextAt, head);
        }
        return new Fetch(claimed, nextAt);
    }

    private List<Long> popDue(long now, int limit) {
        List<Long> ids = new ArrayList<>();
        int shards = shardHeads.length;
        for (int i = 0; i < shards && ids.size() < limit; i++) {
            int shard = (firstShard + i) % shards;
            Popped popped = indexer.pop(shard, now, limit - ids.size());
            if (popped == null) {
                break; // unreachable: the next fetch claims from the database
            }
            ids.addAll(popped.ids());
            shardHeads[shard] = popped.nextDue() == null ? Long.MAX_VALUE : popped.nextDue();
        }
        firstShard = (firstShard + 1) % shards;
        return ids;
    }

    /** Claims pending rows due by {@code dueBy} straight from the database, {@code QUEUED} first. */
    private int claimPending(long dueBy, int limit, long now, List<ClaimedTask> into) {
        int before = into.size();
        if (limit > 0) {
            into.addAll(store.claimDue(TaskStatus.QUEUED, dueBy, limit, claims.at(now)));
        }
        int room = limit - (into.size() - before);
        if (room > 0) {
            into.addAll(store.claimDue(TaskStatus.SCHEDULED, dueBy, room, claims.at(now)));
        }
        return into.size() - before;
    }
}
