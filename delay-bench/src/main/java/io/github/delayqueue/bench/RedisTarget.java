package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.api.sync.RedisSortedSetCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;

/**
 * The Redis a run's own checks use: the single server, or the Redis Cluster of a cluster run. Lettuce's cluster
 * commands already span the cluster (SCAN walks every node, DEL splits by slot, SCRIPT LOAD goes to every node), so
 * callers see one set of commands either way; only INFO is per node.
 */
final class RedisTarget implements AutoCloseable {

    private final RedisClient single;

    private final RedisClusterClient cluster;

    private RedisTarget(RedisClient single, RedisClusterClient cluster) {
        this.single = single;
        this.cluster = cluster;
    }

    static RedisTarget single(String url) {
        return new RedisTarget(RedisClient.create(url), null);
    }

    /** {@code nodes} as {@code host:port}. */
    static RedisTarget cluster(List<String> nodes) {
        List<RedisURI> uris = new ArrayList<>();
        for (String node : nodes) {
            int colon = node.lastIndexOf(':');
            uris.add(RedisURI.create(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1))));
        }
        return new RedisTarget(null, RedisClusterClient.create(uris));
    }

    boolean isCluster() {
        return cluster != null;
    }

    Session open() {
        if (cluster != null) {
            StatefulRedisClusterConnection<String, String> connection = cluster.connect();
            RedisAdvancedClusterCommands<String, String> sync = connection.sync();
            return new Session(connection, sync, sync, sync, section -> {
                List<String> infos = new ArrayList<>();
                sync.upstream().commands().info(section).forEach(infos::add);
                return infos;
            });
        }
        StatefulRedisConnection<String, String> connection = single.connect();
        var sync = connection.sync();
        return new Session(connection, sync, sync, sync, section -> List.of(sync.info(section)));
    }

    /** Deletes every key matching {@code pattern}; returns how many. */
    long deleteKeys(String pattern) {
        long deleted = 0;
        try (Session session = open()) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = session.keys.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                if (!page.getKeys().isEmpty()) {
                    deleted += session.keys.del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            }
            while (!cursor.isFinished());
        }
        return deleted;
    }

    /** Members of all sorted sets whose keys match {@code pattern}. */
    long sortedSetSizes(String pattern) {
        long size = 0;
        try (Session session = open()) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = session.keys.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                for (String key : page.getKeys()) {
                    size += session.zsets.zcard(key);
                }
                cursor = page;
            }
            while (!cursor.isFinished());
        }
        return size;
    }

    @Override
    public void close() {
        if (single != null) {
            single.shutdown();
        }
        if (cluster != null) {
            cluster.shutdown();
        }
    }

    interface Info {
        List<String> perNode(String section);
    }

    /** One connection: to the server, or to the cluster as a whole. */
    static final class Session implements AutoCloseable {

        final RedisScriptingCommands<String, String> scripting;

        final RedisKeyCommands<String, String> keys;

        final RedisSortedSetCommands<String, String> zsets;

        final Info info;

        private final StatefulConnection<String, String> connection;

        Session(StatefulConnection<String, String> connection, RedisScriptingCommands<String, String> scripting,
                RedisKeyCommands<String, String> keys, RedisSortedSetCommands<String, String> zsets, Info info) {
            this.connection = connection;
            this.scripting = scripting;
            this.keys = keys;
            this.zsets = zsets;
            this.info = info;
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
