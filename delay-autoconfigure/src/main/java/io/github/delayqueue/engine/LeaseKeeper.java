package io.github.delayqueue.engine;

import java.util.List;

import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the lease of every task this instance holds (waiting, running, or finished but not yet written), so a
 * handler that runs longer than the lease keeps its claim and is never run twice at once.
 */
final class LeaseKeeper implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final TaskStore store;

    private final WorkerPool pool;

    private final Claims claims;

    private final QueueClock clock;

    private final Throttle throttle = new Throttle(log, "Renewing task leases");

    LeaseKeeper(TaskStore store, WorkerPool pool, Claims claims, QueueClock clock) {
        this.store = store;
        this.pool = pool;
        this.claims = claims;
        this.clock = clock;
    }

    @Override
    public void run() {
        List<Long> ids = pool.heldIds();
        if (ids.isEmpty()) {
            return;
        }
        try {
            long now = clock.now();
            store.extendLeases(claims.owner(), ids, now + claims.leaseMillis(), now);
            pool.leasesRenewed(ids, now + claims.leaseMillis());
            throttle.succeeded();
        }
        catch (RuntimeException ex) {
            throttle.failed(ex);
        }
    }
}
