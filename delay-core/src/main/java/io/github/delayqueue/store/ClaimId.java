package io.github.delayqueue.store;

/**
 * One claim of one task: the task id and the claim's number. Every claim of a task gets a higher number, and every
 * write a claim makes later (start, renewal, completion, hand-back) matches both, so a process can only ever change
 * its own claim, never a later one that another instance (or this one) made after its lease was lost.
 *
 * @param id the task id
 * @param claim the claim's number, 1 for the first claim of the task
 */
public record ClaimId(long id, long claim) {
}
