package io.github.delayqueue.index;

/** What tests in other packages may see of the index's package-private parts: the Redis key of a shard. */
public final class IndexAccess {

    private IndexAccess() {
    }

    /** The sorted set that holds {@code shard}'s ids, for tests that change Redis behind the index's back. */
    public static String key(RedisTimeIndex index, int shard) {
        return index.key(shard);
    }
}
