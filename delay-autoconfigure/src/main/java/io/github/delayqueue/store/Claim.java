package io.github.delayqueue.store;

/**
 * Who claims and for how long.
 *
 * @param owner the claiming instance
 * @param leaseUntil until when the claim holds, epoch milliseconds
 * @param now the claiming instance's current time, epoch milliseconds
 */
public record Claim(String owner, long leaseUntil, long now) {
}
