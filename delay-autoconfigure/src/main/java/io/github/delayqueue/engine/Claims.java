package io.github.delayqueue.engine;

import java.time.Duration;

import io.github.delayqueue.store.Claim;

/** Makes the {@link Claim} this instance stamps on the rows it takes: its id and a lease from now. */
public final class Claims {

    private final String owner;

    private final long leaseMillis;

    public Claims(String owner, Duration lease) {
        this.owner = owner;
        this.leaseMillis = lease.toMillis();
    }

    public Claim at(long now) {
        return new Claim(owner, now + leaseMillis, now);
    }

    public String owner() {
        return owner;
    }

    public long leaseMillis() {
        return leaseMillis;
    }
}
