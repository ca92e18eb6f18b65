package io.github.delayqueue.index;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * {@link TimeIndex} on Redis: one sorted set per shard (score = due time in epoch milliseconds, member = task id),
 * each key hash-tagged on its own so every script touches one slot and the shards spread over a Redis Cluster.
 * The {@code add} and {@code pop} Lua scripts are loaded once and called by SHA. A new shard head is published on
 * the wake-up channel, which every instance subscribes to ({@link WakeSubscription}). Full rebuilds are recorded
 * beside the index ({@link RedisIndexRebuilds}), so that one serves every instance.
 */
public class RedisTimeIndex implements TimeIndex {

    /** Entries per {@code add} call, keeping the script's argument list well inside Lua's limits. */
    private static final int MAX_ADD = 500;

    private static final RedisScript<Long> ADD = RedisScript.of(script("add.lua"), Long.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> POP = RedisScript.of(script("pop.lua"), List.class);

    private final RedisConnectionFactory connectionFactory;

    private final StringRedisTemplate redis;

    private final String[] keys;

    private final String channel;

    private final RedisIndexRebuilds rebuilds;

    private volatile @Nullable WakeSubscription wakeUps;

    public RedisTimeIndex(RedisConnectionFactory connectionFactory, String keyPrefix, int shards) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be at least 1: " + shards);
        }
        this.connectionFactory = connectionFactory;
        this.redis = new StringRedisTemplate(connectionFactory);
        this.keys = new String[shards];
        for (int shard = 0; shard < shards; shard++) {
            keys[shard] = keyPrefix + ":due:{" + keyPrefix + ":" + shard + "}";
        }
        this.channel = keyPrefix + ":wake";
        this.rebuilds = new RedisIndexRebuilds(redis, keyPrefix);
    }

    /** A script's text, read once: a script backed by a resource checks the resource again on every call. */
    static String script(String name) {
        try (InputStream in = new ClassPathResource("io/github/delayqueue/index/" + name).getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot read the Lua script " + name, ex);
        }
    }

    /** The sorted set of {@code shard}. */
    String key(int shard) {
        return keys[shard];
    }

    @Override
    public int shards() {
        return keys.length;
    }

    private int shardOf(long id) {
        return (int) Math.floorMod(id, (long) keys.length);
    }

    @Override
    public void add(List<IndexEntry> entries) {
        Map<Integer, List<String>> byShard = new HashMap<>();
        for (IndexEntry entry : entries) {
            List<String> args = byShard.computeIfAbsent(shardOf(entry.id()), s -> new ArrayList<>(List.of(channel)));
            args.add(Long.toString(entry.dueAt()));
            args.add(Long.toString(entry.id()));
        }
        guard(() -> {
            byShard.forEach((shard, args) -> {
                for (int from = 1; from < args.size(); from += 2 * MAX_ADD) {
                    List<String> chunk = new ArrayList<>(2 * MAX_ADD + 1);
                    chunk.add(channel);
                    chunk.addAll(args.subList(from, Math.min(args.size(), from + 2 * MAX_ADD)));
                    redis.execute(ADD, List.of(keys[shard]), chunk.toArray());
                }
            });
            return null;
        });
    }

    @Override
    public void remove(Collection<Long> ids) {
        Map<Integer, List<Object>> byShard = new HashMap<>();
        for (Long id : ids) {
            byShard.computeIfAbsent(shardOf(id), s -> new ArrayList<>()).add(Long.toString(id));
        }
        guard(() -> {
            byShard.forEach((shard, members) -> redis.opsForZSet().remove(keys[shard], members.toArray()));
            return null;
        });
    }

    @Override
    public Popped pop(int shard, long now, int limit) {
        List<?> result = guard(() -> redis.execute(POP, List.of(keys[shard]), Long.toString(now),
                Integer.toString(Math.min(limit, MAX_POP))));
        if (result == null || result.isEmpty()) {
            return new Popped(List.of(), null);
        }
        String head = String.valueOf(result.get(0));
        List<Long> ids = new ArrayList<>(result.size() - 1);
        for (int i = 1; i < result.size(); i++) {
            ids.add(Long.parseLong(String.valueOf(result.get(i))));
        }
        return new Popped(ids, head.isEmpty() ? null : (long) Double.parseDouble(head));
    }

    @Override
    public long size(int shard) {
        Long size = guard(() -> redis.opsForZSet().zCard(keys[shard]));
        return size == null ? 0 : size;
    }

    @Override
    public IndexRebuilds rebuilds() {
        return rebuilds;
    }

    @Override
    public synchronized void subscribe(LongConsumer listener) {
        unsubscribe();
        WakeSubscription subscription = new WakeSubscription(connectionFactory, redis, channel, listener);
        wakeUps = subscription; // kept when it fails now: keepSubscribed() tries again
        subscription.start();
    }

    @Override
    public boolean keepSubscribed() {
        WakeSubscription subscription = wakeUps;
        return subscription != null && subscription.check();
    }

    @Override
    public synchronized void unsubscribe() {
        WakeSubscription subscription = wakeUps;
        wakeUps = null;
        if (subscription != null) {
            subscription.stop();
        }
    }

    static <T> T guard(Supplier<T> call) {
        try {
            return call.get();
        }
        catch (DataAccessException | IllegalStateException ex) {
            throw new IndexUnavailableException("Redis time index: " + ex.getMessage(), ex);
        }
    }
}
