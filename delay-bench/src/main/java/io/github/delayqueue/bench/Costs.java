package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a run cost per task, as the client counted it and as the servers did. */
final class Costs {

    private Costs() {
    }

    /**
     * Per-task cost: what the client sent (exact, this process only) and what the servers counted (server-wide:
     * includes the benchmark's own few status polls, subtracted from Com_select, and anything else running).
     */
    static void describe(Map<String, Long> client, Map<String, Long> db, Map<String, Long> redis, int polls,
            int n, Map<String, Object> result) {
        long sql = 0;
        long redisCalls = 0;
        Map<String, Object> clientPerTask = new LinkedHashMap<>();
        List<Map.Entry<String, Long>> entries = new ArrayList<>(client.entrySet());
        entries.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        for (Map.Entry<String, Long> entry : entries) {
            String key = entry.getKey();
            if (key.startsWith("sql ") && !key.startsWith("sql batch row ")) {
                sql += entry.getValue();
            }
            if (key.startsWith("redis ")) {
                redisCalls += entry.getValue();
            }
            clientPerTask.put(key, perTask(entry.getValue(), n));
        }
        result.put("sql_per_task", perTask(sql, n));
        result.put("commits_per_task", perTask(client.getOrDefault("jdbc commit", 0L), n));
        result.put("autocommit_switches_per_task", perTask(client.getOrDefault("jdbc setAutoCommit(false)", 0L)
                + client.getOrDefault("jdbc setAutoCommit(true)", 0L), n));
        result.put("redis_calls_per_task", perTask(redisCalls, n));

        Map<String, Long> server = new LinkedHashMap<>(db);
        server.computeIfPresent("Com_select", (k, v) -> v - polls);
        server.remove("Com_show_status");
        Map<String, Object> serverPerTask = new LinkedHashMap<>();
        server.forEach((name, value) -> serverPerTask.put(name, perTask(value, n)));
        for (String name : List.of("Com_select", "Com_insert", "Com_update", "Com_commit", "Com_set_option",
                "Innodb_os_log_fsyncs", "Innodb_data_fsyncs")) {
            result.put("server_" + name.toLowerCase() + "_per_task", perTask(server.getOrDefault(name, 0L), n));
        }
        Map<String, Long> redisServer = new LinkedHashMap<>(redis);
        redisServer.remove("info");
        long redisCommands = redisServer.values().stream().mapToLong(Long::longValue).sum();
        result.put("server_redis_commands_per_task", perTask(redisCommands, n));
        Map<String, Object> redisPerTask = new LinkedHashMap<>();
        redisServer.forEach((name, value) -> redisPerTask.put(name, perTask(value, n)));
        result.put("client_per_task", clientPerTask);
        result.put("server_db_per_task", serverPerTask);
        result.put("server_redis_per_task", redisPerTask);
    }

    static double perTask(long count, int n) {
        return Math.round(count * 1000.0 / n) / 1000.0;
    }
}
