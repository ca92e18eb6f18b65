package io.github.delayqueue.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the lease of every claim this instance holds (waiting, running, or finished but not yet written), so a
 * handler that runs longer than the lease keeps its claim and is never run twice at once. A claim the database did
 * not renew is lost (another instance took it after this one stalled), and the {@link HeldTasks} ledger is told at
 * once. Claims it gave up while the database was out of reach are handed back here once it answers. It waits on the
 * database alone: what it hands back is indexed on another thread ({@link IndexWrites}), so a Redis that hangs never
 * delays the next renewal. A run that fails throws, and its {@link PeriodicJob} tries again within half a second.
 */
final class LeaseKeeper implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final TaskStore store;

    private final HeldTasks held;

    private final ClaimTerms terms;

    private final QueueClock clock;

    private final Tiers tiers;

    private final IndexWrites index;

    LeaseKeeper(TaskStore store, HeldTasks held, ClaimTerms terms, QueueClock clock, Tiers tiers, IndexWrites index) {
        this.store = store;
        this.held = held;
        this.terms = terms;
        this.clock = clock;
        this.tiers = tiers;
        this.index = index;
    }

    @Override
    public void run() {
        renew();
        handBackGivenUp();
    }

    private void renew() {
        List<ClaimId> claims = held.claims();
        if (claims.isEmpty()) {
            return;
        }
        long now = clock.now();
        long leaseUntil = now + terms.leaseMillis();
        Set<ClaimId> renewed = store.extendLeases(claims, leaseUntil);
        held.leasesRenewed(renewed, leaseUntil);
        if (renewed.size() < claims.size()) {
            List<ClaimId> lost = new ArrayList<>(claims);
            lost.removeAll(renewed);
            held.leasesLost(lost);
        }
    }

    private void handBackGivenUp() {
        List<ClaimedTask> givenUp = held.takeGivenUp();
        if (givenUp.isEmpty()) {
            return;
        }
        try {
            HandBack.release(store, tiers, index, givenUp, clock.now());
            log.info("Handed back {} claimed task(s) given up while their lease could not be renewed",
                    givenUp.size());
        }
        catch (RuntimeException ex) {
            held.keepGivenUp(givenUp);
            throw ex;
        }
    }
}
