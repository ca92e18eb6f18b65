package io.github.delayqueue.runtime;

import java.time.Duration;

import io.github.delayqueue.store.Lease;

/**
 * Makes the {@link Lease} this process stamps on the rows it claims. The owner is unique to the process, even when
 * several processes are configured with the same {@code delay.instance-id}: adoption of lost claims goes by owner.
 */
final class ClaimTerms {

    private final String owner;

    private final long leaseMillis;

    ClaimTerms(String owner, Duration lease) {
        this.owner = owner;
        this.leaseMillis = lease.toMillis();
    }

    Lease at(long now) {
        return new Lease(owner, now + leaseMillis, now);
    }

    String owner() {
        return owner;
    }

    long leaseMillis() {
        return leaseMillis;
    }
}
