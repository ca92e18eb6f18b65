package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.index.Popped;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;

/**
 * {@code hybrid} mode: pops due ids from the time index, visiting the shards in turn, and claims them with the
 * database's compare-and-set; ids whose rows were already taken are dropped and counted. A look claims what falls
 * due within one and a half claim-aheads, and the next comes when the earliest shard head it has seen is that close
 * (or after {@code max-wait}), but, unless the index holds a backlog, no sooner than half a claim-ahead later: a
 * steady stream is claimed in rounds of half a claim-ahead's tasks, each at least a claim-ahead before it is due. Every
 * {@code sweep-interval} it also claims rows still pending past the sweep grace, which the index lost, oldest first;
 * while the index holds a backlog of due ids it sweeps too, a quarter of a claim at a time, so a lost row is reached no
 * later than the index would have reached it. While the index is unreachable it claims due rows from the database
 * alone.
 * <p>
 * It claims only the types the instance can start now ({@link ClaimableTypes}). A popped id of another type (no
 * handler here, or at its {@code concurrency}) is not put back in the index: its row stays pending, and the sweep of
 * an instance that can run it claims it once it is {@code sweep-grace} overdue. Putting it back would have every
 * instance that cannot run it pop it again and again, in a loop as hot as the pops, with the ids it can run waiting
 * behind it. A type of its own that was paused or at its limit is remembered, and claimed from the database (up to
 * its room) as soon as it is resumed or has room again, so a type with a backlog runs at its {@code concurrency}, not
 * at the sweep's pace, and a resumed type's overdue tasks run at once.
 */
final class IndexTaskSource implements TaskSource {

    private final Indexer indexer;

    private final TaskStore store;

    private final ClaimTerms terms;

    private final TaskEvents events;

    private final long maxWaitMillis;

    private final long sweepGraceMillis;

    private final long sweepIntervalMillis;

    private final long pollMillis;

    private final long claimAheadMillis;

    /**
     * How far apart the looks of a steady stream are (half the claim-ahead), and how much further than the
     * claim-ahead a look claims: a look that took all that was due looks again no sooner than this, so a claim takes
     * what falls due in that much time rather than the few tasks that came within the claim-ahead while the last
     * claim ran (a commit for each few tasks), and each task is still claimed the whole claim-ahead before it is due.
     */
    private final long paceMillis;

    private final ClaimableTypes claimable;

    /**
     * Served types whose popped ids were left in the database because the type could not be claimed then (at its
     * limit): claimed from the database as soon as they have room, not only by the sweep.
     */
    private final Set<String> leftInDatabase = new HashSet<>();

    private final long[] shardHeads;

    /** The queue clock, read again after a pop: one that answered late must not claim with a lease already spent. */
    private final LongSupplier clock;

    /** A pop answered later than this (a tenth of a lease) puts its ids back to be claimed with a fresh lease. */
    private final long latePopMillis;

    private int firstShard;

    private long nextSweepAt;

    /** The last pop filled its batch: due ids are still waiting in the index, and most overdue rows are among them. */
    private boolean backlog;

    IndexTaskSource(Indexer indexer, TaskStore store, ClaimTerms terms, TaskEvents events, EngineSettings settings,
            LongSupplier clock, ClaimableTypes claimable) {
        this.claimable = claimable;
        this.indexer = indexer;
        this.clock = clock;
        this.latePopMillis = terms.leaseMillis() / 10;
        this.store = store;
        this.terms = terms;
        this.events = events;
        this.maxWaitMillis = settings.redis().maxWait().toMillis();
        this.sweepGraceMillis = settings.hybrid().sweepGrace().toMillis();
        this.sweepIntervalMillis = settings.hybrid().sweepInterval().toMillis();
        this.pollMillis = settings.jdbc().pollInterval().toMillis();
        this.claimAheadMillis = settings.worker().claimAhead().toMillis();
        this.paceMillis = claimAheadMillis / 2;
        this.shardHeads = new long[indexer.index().shards()];
        Arrays.fill(shardHeads, Long.MAX_VALUE);
    }

    @Override
    public FetchResult fetch(long now, int limit) {
        List<ClaimedTask> claimed = new ArrayList<>();
        Set<String> types = claimable.now();
        if (types.isEmpty()) {
            // nothing to claim: every type paused or at its limit, or none served; the index keeps its ids
            return new FetchResult(claimed, now + Math.min(pollMillis, maxWaitMillis));
        }
        if (now >= nextSweepAt) {
            nextSweepAt = now + sweepIntervalMillis;
            // During a backlog most rows overdue past the grace still wait in the index, so the sweep takes only a
            // share: it claims the oldest first, which the index would run first anyway, and a row the index lost
            // (popped by an instance that died before its claim) is reached in due order instead of after the
            // backlog drains.
            int share = backlog ? Math.max(1, limit / 4) : limit;
            int swept = sweep(now - sweepGraceMillis, share, now, types, claimed);
            if (swept > 0) {
                events.recovered(TaskEvents.RecoveryReason.SWEEP, swept);
            }
            if (!backlog && swept == limit) {
                nextSweepAt = now; // Redis was flushed, say: keep sweeping until the database has no such rows
            }
        }
        claimLeftInDatabase(now + claimAheadMillis, limit, now, claimed);
        if (!indexer.available()) {
            // as jdbc mode: while due rows keep coming, claim again at once, else look again after the poll
            claimPending(now, limit - claimed.size(), now, types, claimed);
            return new FetchResult(claimed, claimed.isEmpty() ? Math.min(now + pollMillis, nextSweepAt) : now);
        }
        int room = limit - claimed.size();
        long dueBy = now + claimAheadMillis + paceMillis;
        List<Long> popped = popDue(dueBy, room);
        backlog = room > 0 && popped.size() >= room;
        if (!popped.isEmpty() && clock.getAsLong() - now > latePopMillis) {
            // Redis answered late (it hung, or this process stalled): a claim stamped with the time before the pop
            // would get a lease partly spent, and its tasks given up. Back they go, due now, for the next look.
            indexer.add(popped.stream().map(id -> new DueTask(id, now)).toList());
            return new FetchResult(claimed, now);
        }
        if (!popped.isEmpty()) {
            List<ClaimedTask> won;
            try {
                won = store.claimIds(popped, dueBy, types, claimable.limits(types), terms.at(now));
            }
            catch (RuntimeException ex) {
                // Put them back, due now, rather than leave them to the sweep grace.
                indexer.add(popped.stream().map(id -> new DueTask(id, now)).toList());
                throw ex;
            }
            if (won.size() < popped.size()) {
                requeueSkipped(popped, won, types, now);
            }
            claimed.addAll(won);
        }
        long nextAt = Math.min(now + maxWaitMillis, nextSweepAt);
        for (long head : shardHeads) {
            if (head != Long.MAX_VALUE) {
                nextAt = Math.min(nextAt, head - claimAheadMillis - paceMillis);
            }
        }
        if (!backlog) {
            nextAt = Math.max(nextAt, now + paceMillis);
        }
        return new FetchResult(claimed, nextAt);
    }

    /**
     * Popped ids the claim did not win were mostly taken by others (a conflict, counted); but a row another
     * transaction held for a moment is skipped by {@code SKIP LOCKED} while still pending: put those back in the
     * index rather than leave them to the sweep grace. A pending row of a type this instance cannot start now stays
     * out of the index (see the class comment).
     */
    private void requeueSkipped(List<Long> popped, List<ClaimedTask> won, Set<String> types, long now) {
        Set<Long> lost = new HashSet<>(popped);
        won.forEach(task -> lost.remove(task.id()));
        List<DueTask> locked = store.pendingAmong(lost, claimable.now());
        // not before a short pause: a row locked for longer (an open transaction) must not be popped in a hot loop
        indexer.add(locked.stream()
            .map(task -> new DueTask(task.id(), Math.max(task.dueAt(), now + LOCKED_RETRY_MILLIS)))
            .toList());
        if (lost.size() > locked.size()) {
            int pending = store.pendingAmong(lost).size(); // the locked ones and those of other types
            if (pending > locked.size()) {
                leftInDatabase.addAll(claimable.servedButNotNow());
            }
            if (lost.size() > pending) {
                events.claimConflicts(lost.size() - pending);
            }
        }
    }

    /**
     * Claims, up to their room and until {@code into} holds {@code limit}, pending rows of the types whose popped ids
     * were left in the database.
     */
    private void claimLeftInDatabase(long dueBy, int limit, long now, List<ClaimedTask> into) {
        if (leftInDatabase.isEmpty()) {
            return;
        }
        Iterator<String> types = leftInDatabase.iterator();
        while (types.hasNext() && into.size() < limit) {
            String type = types.next();
            int room = Math.min(claimable.room(type), limit - into.size());
            if (room <= 0) {
                continue; // still paused or at its limit
            }
            Set<String> only = Set.of(type);
            List<ClaimedTask> claimed = store.claimDue(TaskStatus.QUEUED, dueBy, room, only, claimable.limits(only),
                    terms.at(now));
            into.addAll(claimed);
            if (claimed.size() < room && claimable.room(type) > 0) {
                // none left in the database now (not held back by a cluster-wide limit); the index has the rest
                types.remove();
            }
        }
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

    /**
     * Claims the rows pending since before {@code dueBy}, up to {@code share}, {@code QUEUED} first: found by a plain
     * read, then claimed by id. Nearly every sweep finds none, and a locking claim that finds none is the costly case:
     * it walks on past its ranges over the entries of tasks that just left them ({@link TaskStore#pendingDue}), once a
     * second on the dispatcher's round. A row another instance claims between the read and the claim is skipped.
     */
    private int sweep(long dueBy, int share, long now, Set<String> types, List<ClaimedTask> into) {
        List<Long> found = new ArrayList<>();
        store.pendingDue(TaskStatus.QUEUED, dueBy, share, types).forEach(task -> found.add(task.id()));
        if (found.size() < share) {
            store.pendingDue(TaskStatus.SCHEDULED, dueBy, share - found.size(), types)
                .forEach(task -> found.add(task.id()));
        }
        if (found.isEmpty()) {
            return 0;
        }
        List<ClaimedTask> won = store.claimIds(found, dueBy, types, claimable.limits(types), terms.at(now));
        into.addAll(won);
        return won.size();
    }

    /** Claims pending rows due by {@code dueBy} straight from the database, {@code QUEUED} first. */
    private int claimPending(long dueBy, int limit, long now, Set<String> types, List<ClaimedTask> into) {
        int before = into.size();
        if (limit > 0) {
            into.addAll(store.claimDue(TaskStatus.QUEUED, dueBy, limit, types, claimable.limits(types),
                    terms.at(now)));
        }
        int room = limit - (into.size() - before);
        if (room > 0) {
            into.addAll(store.claimDue(TaskStatus.SCHEDULED, dueBy, room, types, claimable.limits(types),
                    terms.at(now)));
        }
        return into.size() - before;
    }
}
