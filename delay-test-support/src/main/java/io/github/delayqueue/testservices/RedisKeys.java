package io.github.delayqueue.testservices;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

/** Deletes the keys under the prefixes a test run created, on the single node and on every cluster master. */
public final class RedisKeys {

    private RedisKeys() {
    }

    public static void deleteAll(ServiceEndpoints services, List<String> prefixes) {
        if (prefixes.isEmpty()) {
            return;
        }
        try {
            RedisClient client = RedisClient.create(services.redisUrl());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                delete(connection.sync(), prefixes);
            }
            finally {
                client.shutdown();
            }
            if (!services.redisClusterNodes().isEmpty()) {
                List<RedisURI> seeds = new ArrayList<>();
                for (String node : services.redisClusterNodes()) {
                    seeds.add(RedisURI.create("redis://" + node));
                }
                RedisClusterClient cluster = RedisClusterClient.create(seeds);
                try (StatefulRedisClusterConnection<String, String> connection = cluster.connect()) {
                    for (RedisClusterNode node : connection.getPartitions()) {
                        if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                            delete(connection.getConnection(node.getNodeId()).sync(), prefixes);
                        }
                    }
                }
                finally {
                    cluster.shutdown();
                }
            }
        }
        catch (RuntimeException ex) {
            System.err.println("[delay tests] could not delete test keys: " + ex.getMessage());
        }
    }

    private static void delete(RedisCommands<String, String> redis, List<String> prefixes) {
        for (String prefix : prefixes) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor,
                        ScanArgs.Builder.matches("*" + prefix + "*").limit(500));
                if (!page.getKeys().isEmpty()) {
                    redis.del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            }
            while (!cursor.isFinished());
        }
    }
}
