package io.github.delayqueue.api;

/**
 * What {@link DelayQueue#submit} did with a request: the task's id and which case happened, so a caller that
 * debounces or replaces by key can tell a new task from a changed one (to log it, count it, or answer its own caller).
 *
 * @param id the id of the task that now carries the request: the new one, or the key's live task
 * @param outcome which case happened
 * @since 0.1.0
 */
public record Scheduled(long id, Outcome outcome) {

    /**
     * Which case happened for a request ({@link TaskRequest.KeyMode} says what each mode does).
     *
     * @since 0.1.0
     */
    public enum Outcome {

        /** A new task was stored: the request had no key, or no live task held it. */
        CREATED,

        /** The key's live task was left as it is: it was running, or the request keeps a pending task. */
        KEPT,

        /** The key's pending task took the request's payload, due time and attempts ({@code replace()}). */
        REPLACED,

        /** The key's pending task took the request's payload and the later due time ({@code debounce()}). */
        EXTENDED,

        /**
         * The key's task is running: the request is its one follow-up ({@code runOnceMore()}), the task with the id
         * answered, which waits for the running one to end; a follow-up that was waiting already took it in.
         */
        QUEUED_AFTER_RUNNING
    }
}
