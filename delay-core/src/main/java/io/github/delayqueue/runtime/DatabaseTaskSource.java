package io.github.delayqueue.runtime;

import java.util.List;
import java.util.OptionalLong;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.TaskStore;

/**
 * {@code jdbc} mode: claims due {@code SCHEDULED} rows straight from the database with {@code FOR UPDATE SKIP
 * LOCKED}. While work keeps coming it claims back to back; when idle it asks for the earliest due time and sleeps
 * until then or the poll interval, whichever is first.
 */
final class DatabaseTaskSource implements TaskSource {

    /** How often an idle source also claims rows left {@code QUEUED} by an earlier hybrid run. */
    private static final long LEFTOVER_CHECK_MILLIS = 5_000;

    private final TaskStore store;

    private final ClaimTerms terms;

    private final long pollMillis;

    private final long claimAheadMillis;

    private boolean busy = true;

    private boolean dueButLocked;

    private long nextLeftoverCheck;

    /**
     * Polls every {@code delay.jdbc.poll-interval} while idle; tasks due within {@code delay.worker.claim-ahead} are
     * claimed already, and the pool starts each when it falls due.
     */
    DatabaseTaskSource(TaskStore store, ClaimTerms terms, EngineSettings settings) {
        this(store, terms, settings.jdbc().pollInterval().toMillis(), settings.worker().claimAhead().toMillis());
    }

    DatabaseTaskSource(TaskStore store, ClaimTerms terms, long pollMillis, long claimAheadMillis) {
        this.store = store;
        this.terms = terms;
        this.pollMillis = pollMillis;
        this.claimAheadMillis = claimAheadMillis;
    }

    @Override
    public FetchResult fetch(long now, int limit) {
        if (!busy) {
            if (now >= nextLeftoverCheck) {
                nextLeftoverCheck = now + LEFTOVER_CHECK_MILLIS;
                List<ClaimedTask> leftovers = store.claimDue(TaskStatus.QUEUED, now, limit, terms.at(now));
                if (!leftovers.isEmpty()) {
                    return new FetchResult(leftovers, now);
                }
            }
            OptionalLong next = store.nextDue(TaskStatus.SCHEDULED);
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
        List<ClaimedTask> claimed = store.claimDue(TaskStatus.SCHEDULED, now + claimAheadMillis, limit,
                terms.at(now));
        dueButLocked = !busy && claimed.isEmpty();
        busy = !claimed.isEmpty();
        return new FetchResult(claimed, now);
    }
}
