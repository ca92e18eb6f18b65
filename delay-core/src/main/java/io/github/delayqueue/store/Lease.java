package io.github.delayqueue.store;

/**
 * The terms a claim is made on: who takes the tasks and until when the claim holds without renewal.
 *
 * @param owner the claiming process, unique per process (see {@code ClaimTerms} in the engine)
 * @param until until when the claim holds, epoch milliseconds on the queue clock
 * @param now the claiming instance's current time, epoch milliseconds
 */
public record Lease(String owner, long until, long now) {
}
