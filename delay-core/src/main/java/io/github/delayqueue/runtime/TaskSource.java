package io.github.delayqueue.runtime;

/** Where the dispatcher finds due work: the database alone ({@code jdbc}) or the time index with the database. */
interface TaskSource {

    /**
     * How soon a due task skipped because another transaction held its row locked (another instance's claim, an open
     * transaction) is looked for again: soon, but not in a hot loop.
     */
    long LOCKED_RETRY_MILLIS = 100;

    /** Claims up to {@code limit} tasks due by {@code now}. */
    FetchResult fetch(long now, int limit);
}
