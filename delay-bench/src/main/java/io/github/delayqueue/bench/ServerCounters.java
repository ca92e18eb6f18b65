package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;


/**
 * Server-side statement counts: MariaDB/MySQL {@code SHOW GLOBAL STATUS} ({@code Com_*}, plus the InnoDB fsync and
 * log-write counters) and Redis {@code INFO commandstats}, read before and after a run. They are server-wide, so
 * anything else using the servers at the same time is counted too; the client-side counts say what this process sent.
 */
final class ServerCounters {

    private static final String[] INNODB = { "Innodb_data_fsyncs", "Innodb_os_log_fsyncs", "Innodb_log_writes",
            "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_read", "Innodb_row_lock_waits",
            "Innodb_row_lock_time", "Innodb_deadlocks", "Questions", "Handler_commit" };

    private ServerCounters() {
    }

    /** {@code Com_*} and a few InnoDB counters, by name. */
    static Map<String, Long> database(Servers servers) {
        Map<String, Long> counters = new TreeMap<>();
        try (Connection connection = servers.connect(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW GLOBAL STATUS")) {
            while (rs.next()) {
                String name = rs.getString(1);
                if (name.startsWith("Com_") || isInnodb(name)) {
                    try {
                        counters.put(name, Long.parseLong(rs.getString(2)));
                    }
                    catch (NumberFormatException ex) {
                        // not a counter
                    }
                }
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("SHOW GLOBAL STATUS failed: " + ex.getMessage(), ex);
        }
        return counters;
    }

    /**
     * The buffer pool's state, for the soak's intervals: {@code Innodb_buffer_pool_pages_dirty} (pages written but not
     * yet flushed: after the preload, the server flushes them while the run goes on), {@code
     * Innodb_buffer_pool_pages_flushed} and {@code Innodb_buffer_pool_reads} (pages read from disk: a cold table).
     * Empty when the server does not answer.
     */
    static Map<String, Long> bufferPool(Servers servers) {
        Map<String, Long> pages = new TreeMap<>();
        try (Connection connection = servers.connect(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN "
                        + "('Innodb_buffer_pool_pages_dirty', 'Innodb_buffer_pool_pages_flushed', "
                        + "'Innodb_buffer_pool_reads')")) {
            while (rs.next()) {
                pages.put(rs.getString(1), Long.parseLong(rs.getString(2)));
            }
        }
        catch (SQLException | NumberFormatException ex) {
            pages.clear();
        }
        return pages;
    }

    private static boolean isInnodb(String name) {
        for (String counter : INNODB) {
            if (counter.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Calls per command from {@code INFO commandstats} (commands run inside Lua scripts included), summed over the
     * nodes of a cluster.
     */
    static Map<String, Long> redis(RedisTarget target) {
        Map<String, Long> counters = new TreeMap<>();
        try (RedisTarget.Session session = target.open()) {
            for (String info : session.info.perNode("commandstats")) {
                for (String line : info.split("\r?\n")) {
                    // cmdstat_evalsha:calls=12,usec=...,usec_per_call=...
                    if (line.startsWith("cmdstat_")) {
                        int colon = line.indexOf(':');
                        String command = line.substring("cmdstat_".length(), colon);
                        for (String field : line.substring(colon + 1).split(",")) {
                            if (field.startsWith("calls=")) {
                                counters.merge(command, Long.parseLong(field.substring("calls=".length())),
                                        Long::sum);
                            }
                        }
                    }
                }
            }
        }
        return counters;
    }

    /** Redis CPU seconds (user + system, main thread and children) from {@code INFO cpu}, summed over nodes. */
    static double redisCpuSeconds(RedisTarget target) {
        double seconds = 0;
        try (RedisTarget.Session session = target.open()) {
            for (String info : session.info.perNode("cpu")) {
                for (String field : new String[] { "used_cpu_sys", "used_cpu_user" }) {
                    String value = Servers.infoField(info, field);
                    if (!value.equals("?")) {
                        seconds += Double.parseDouble(value);
                    }
                }
            }
        }
        return seconds;
    }

    /** {@code after - before}, keeping only what moved. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((name, value) -> {
            long d = value - before.getOrDefault(name, 0L);
            if (d != 0) {
                delta.put(name, d);
            }
        });
        return delta;
    }
}
