package io.github.delayqueue.index;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * {@link IndexRebuilds} in Redis, beside the index it records: a hash {@code <prefix>:rebuilds} (fields
 * {@code started}, {@code completed}) and a lock {@code <prefix>:rebuild-lock} taken with {@code SET NX PX}. Each
 * command touches one key, so both work on a Redis Cluster as they are; the record is one key so that it can only be
 * lost whole (a flush, a restart without persistence, an eviction), which every instance notices as a record that
 * started fewer rebuilds than it saw.
 */
final class RedisIndexRebuilds implements IndexRebuilds {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> STATE = RedisScript.of(RedisTimeIndex.script("rebuild-state.lua"),
            List.class);

    private static final RedisScript<Long> COMPLETED = RedisScript
        .of(RedisTimeIndex.script("rebuild-completed.lua"), Long.class);

    private static final RedisScript<Long> LOCK = RedisScript.of(RedisTimeIndex.script("rebuild-lock.lua"),
            Long.class);

    private final StringRedisTemplate redis;

    private final String recordKey;

    private final String lockKey;

    RedisIndexRebuilds(StringRedisTemplate redis, String keyPrefix) {
        this.redis = redis;
        this.recordKey = keyPrefix + ":rebuilds";
        this.lockKey = keyPrefix + ":rebuild-lock";
    }

    @Override
    public Record record() {
        List<?> state = RedisTimeIndex.guard(() -> redis.execute(STATE, List.of(recordKey)));
        return new Record(number(state.get(0)), number(state.get(1)));
    }

    @Override
    public boolean tryLock(String token, Duration ttl) {
        return Boolean.TRUE.equals(RedisTimeIndex.guard(() -> redis.opsForValue().setIfAbsent(lockKey, token, ttl)));
    }

    @Override
    public boolean extendLock(String token, Duration ttl) {
        return lock(token, Math.max(1, ttl.toMillis()));
    }

    @Override
    public void unlock(String token) {
        lock(token, 0);
    }

    private boolean lock(String token, long ttlMillis) {
        Long held = RedisTimeIndex.guard(() -> redis.execute(LOCK, List.of(lockKey), token, Long.toString(ttlMillis)));
        return held != null && held == 1;
    }

    @Override
    public long begin() {
        return RedisTimeIndex.guard(() -> redis.opsForHash().increment(recordKey, "started", 1));
    }

    @Override
    public boolean completed(long number) {
        Long counted = RedisTimeIndex
            .guard(() -> redis.execute(COMPLETED, List.of(recordKey), Long.toString(number)));
        return counted != null && counted == 1;
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }
}
