package io.github.delayqueue.runtime;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimLimits;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.TaskStore;

/**
 * {@code jdbc} mode: claims due {@code SCHEDULED} rows straight from the database with {@code FOR UPDATE SKIP
 * LOCKED}. While work keeps coming it claims back to back; when idle it asks for the earliest due time and sleeps
 * until then or the poll interval, whichever is first. It claims only the types the instance can start now
 * ({@link ClaimableTypes}); rows of other types stay pending for an instance that runs them.
 */
final class DatabaseTaskSource implements TaskSource {

    /** How often an idle source also claims rows left {@code QUEUED} by an earlier hybrid run. */
    private static final long LEFTOVER_CHECK_MILLIS = 5_000;

    private final TaskStore store;

    private final ClaimTerms terms;

    private final long pollMillis;

    private final long claimAheadMillis;

    private final Supplier<Set<String>> claimable;

    /** The cluster-wide limits a claim of some types holds. */
    private final Function<Set<String>, ClaimLimits> limits;

    private boolean busy = true;

    private boolean dueButLocked;

    private long nextLeftoverCheck;

    /**
     * Polls every {@code delay.jdbc.poll-interval} while idle; tasks due within {@code delay.worker.claim-ahead} are
     * claimed already, and the pool starts each when it falls due.
     */
    DatabaseTaskSource(TaskStore store, ClaimTerms terms, EngineSettings settings, ClaimableTypes claimable) {
        this(store, terms, settings.jdbc().pollInterval().toMillis(), settings.worker().claimAhead().toMillis(),
                claimable::now, claimable::limits);
    }

    DatabaseTaskSource(TaskStore store, ClaimTerms terms, long pollMillis, long claimAheadMillis,
            Supplier<Set<String>> claimable) {
        this(store, terms, pollMillis, claimAheadMillis, claimable, types -> ClaimLimits.none());
    }

    DatabaseTaskSource(TaskStore store, ClaimTerms terms, long pollMillis, long claimAheadMillis,
            Supplier<Set<String>> claimable, Function<Set<String>, ClaimLimits> limits) {
        this.claimable = claimable;
        this.limits = limits;
        this.store = store;
        this.terms = terms;
        this.pollMillis = pollMillis;
        this.claimAheadMillis = claimAheadMillis;
    }

    @Override
    public FetchResult fetch(long now, int limit) {
        Set<String> types = claimable.get();
        if (types.isEmpty()) {
            busy = false;
            return new FetchResult(List.of(), now + pollMillis); // every type paused or at its limit, or none served
        }
        if (!busy) {
            if (now >= nextLeftoverCheck) {
                nextLeftoverCheck = now + LEFTOVER_CHECK_MILLIS;
                List<ClaimedTask> leftovers = store.claimDue(TaskStatus.QUEUED, now, limit, types,
                        limits.apply(types), terms.at(now));
                if (!leftovers.isEmpty()) {
                    return new FetchResult(leftovers, now);
                }
            }
            // of the claimable types only: an overdue task nobody here runs must not keep the loop awake
            OptionalLong next = store.nextDue(TaskStatus.SCHEDULED, types);
            if (next.isEmpty() || next.getAsLong() > now + claimAheadMillis) {
                long nextAt = now + pollMillis;
                return new FetchResult(List.of(),
                        next.isPresent() ? Math.min(nextAt, next.getAsLong() - claimAheadMillis) : nextAt);
            }
            if (dueButLocked) {
                // the due row is locked by another transaction (another instance's claim, an open transaction):
                // look again shortly rather than in a hot loop
                dueButLocked = false;
                return new FetchResult(List.of(), now + Math.min(pollMillis, LOCKED_RETRY_MILLIS));
            }
        }
        List<ClaimedTask> claimed = store.claimDue(TaskStatus.SCHEDULED, now + claimAheadMillis, limit, types,
                limits.apply(types), terms.at(now));
        dueButLocked = !busy && claimed.isEmpty();
        busy = !claimed.isEmpty();
        return new FetchResult(claimed, now);
    }
}
