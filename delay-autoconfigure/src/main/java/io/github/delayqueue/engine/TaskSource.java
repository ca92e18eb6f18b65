package io.github.delayqueue.engine;

/** Where the dispatcher finds due work: the database alone ({@code jdbc}) or the time index with the database. */
interface TaskSource {

    /** Claims up to {@code limit} tasks due by {@code now}. */
    FetchResult fetch(long now, int limit);
}
