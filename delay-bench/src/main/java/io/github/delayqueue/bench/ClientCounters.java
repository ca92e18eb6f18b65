package io.github.delayqueue.bench;

import java.io.Closeable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.SocketAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;

/**
 * What this process sends: JDBC statements (by normalized SQL shape), commits and auto-commit switches, counted by a
 * proxy around each instance's {@link DataSource}, and Redis commands by type, counted by a Lettuce
 * {@link CommandLatencyRecorder}. One set of counters for the whole JVM, so all instances add up; the server-side
 * counters of {@link ServerCounters} see the same plus whatever else runs on the servers. The same proxy feeds
 * {@link SqlWatch} (claim round times, purged and completed rows).
 */
final class ClientCounters {

    /** Counts the Redis commands of every Lettuce client it is set on, by type. */
    static final CommandLatencyRecorder REDIS = new CommandLatencyRecorder() {
        @Override
        public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
                long firstResponseLatency, long completionLatency) {
            count("redis " + commandType.toString());
        }

        @Override
        public boolean isEnabled() {
            return true;
        }
    };

    private static final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    private static final Map<String, String> labels = new ConcurrentHashMap<>();

    private static final Pattern SPACES = Pattern.compile("\\s+");

    /**
     * A list of two or more placeholders. Character classes only: java.util.regex repeats a group by recursion, and a
     * group repeated for each of thousands of placeholders overflowed the stack (a CI run's bulk workload).
     */
    private static final Pattern PLACEHOLDER_LIST = Pattern.compile("\\?,[ ?,]*\\?");

    /** One parenthesised row; runs of them are folded by {@link #foldRows}, not by a repeated group (as above). */
    private static final Pattern ROW = Pattern.compile("\\([^()]*\\)");

    private static final Map<String, SqlWatch.Kind> kinds = new ConcurrentHashMap<>();

    private ClientCounters() {
    }

    static void reset() {
        counts.clear();
    }

    static Map<String, Long> snapshot() {
        Map<String, Long> snapshot = new TreeMap<>();
        counts.forEach((key, adder) -> snapshot.put(key, adder.sum()));
        return snapshot;
    }

    static void count(String key) {
        counts.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    /** What the statement is to {@link SqlWatch}, judged on its whole text with the whitespace collapsed. */
    static SqlWatch.Kind kind(String sql) {
        if (sql == null) {
            return SqlWatch.Kind.OTHER;
        }
        SqlWatch.Kind kind = kinds.get(sql);
        if (kind == null) {
            kind = SqlWatch.kind(SPACES.matcher(sql).replaceAll(" ").trim());
            if (kinds.size() < 10_000) {
                kinds.put(sql, kind);
            }
        }
        return kind;
    }

    /** Rows in a run ({@code (a), (b), (c)}, comma and optional space between) become the first and {@code ,..}. */
    static String foldRows(String shape) {
        Matcher row = ROW.matcher(shape);
        StringBuilder out = new StringBuilder(shape.length());
        int copied = 0; // after the first row: where the last one ended
        boolean afterRow = false;
        boolean folded = false;
        while (row.find()) {
            String gap = afterRow ? shape.substring(copied, row.start()) : null;
            if (",".equals(gap) || ", ".equals(gap)) {
                if (!folded) {
                    out.append(",..");
                    folded = true;
                }
            }
            else {
                out.append(shape, copied, row.end());
                folded = false;
            }
            copied = row.end();
            afterRow = true;
        }
        return out.append(shape, copied, shape.length()).toString();
    }

    /** A statement's shape: whitespace collapsed, placeholder lists and multi-row VALUES folded. */
    static String label(String sql) {
        String label = labels.get(sql);
        if (label == null) {
            String shape = SPACES.matcher(sql).replaceAll(" ").trim();
            shape = PLACEHOLDER_LIST.matcher(shape).replaceAll("?..");
            shape = foldRows(shape);
            label = shape.length() > 110 ? shape.substring(0, 110) + "..." : shape;
            if (labels.size() < 10_000) {
                labels.put(sql, label);
            }
        }
        return label;
    }

    // --- JDBC ---------------------------------------------------------------------------------------------------

    static DataSource wrap(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(ClientCounters.class.getClassLoader(),
                new Class<?>[] { DataSource.class, Closeable.class }, (proxy, method, args) -> {
                    if (method.getName().equals("close") && method.getParameterCount() == 0) {
                        if (target instanceof AutoCloseable closeable) {
                            closeable.close();
                        }
                        return null;
                    }
                    Object result = invoke(target, method, args);
                    if (method.getName().equals("getConnection")) {
                        count("jdbc getConnection");
                        return connection((Connection) result);
                    }
                    return result;
                });
    }

    private static Connection connection(Connection target) {
        SqlWatch.Transaction transaction = new SqlWatch.Transaction();
        return (Connection) Proxy.newProxyInstance(ClientCounters.class.getClassLoader(),
                new Class<?>[] { Connection.class }, (proxy, method, args) -> {
                    String name = method.getName();
                    switch (name) {
                        case "commit" -> count("jdbc commit");
                        case "rollback" -> count("jdbc rollback");
                        case "setAutoCommit" -> count("jdbc setAutoCommit(" + args[0] + ")");
                        default -> {
                        }
                    }
                    Object result = invoke(target, method, args);
                    if (name.equals("commit") || (name.equals("rollback") && (args == null || args.length == 0))) {
                        transaction.ended();
                    }
                    if (name.equals("prepareStatement") && result instanceof PreparedStatement ps) {
                        String sql = (String) args[0];
                        return statement(ps, PreparedStatement.class, label(sql), kind(sql), transaction);
                    }
                    if (name.equals("createStatement") && result instanceof Statement s) {
                        return statement(s, Statement.class, null, SqlWatch.Kind.OTHER, transaction);
                    }
                    return result;
                });
    }

    private static Object statement(Statement target, Class<?> type, String preparedLabel,
            SqlWatch.Kind preparedKind, SqlWatch.Transaction transaction) {
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
            if (!name.startsWith("execute")) {
                if (name.equals("addBatch")) {
                    count("sql batch row " + preparedLabel);
                }
                return invoke(target, method, args);
            }
            boolean direct = args != null && args.length > 0 && args[0] instanceof String;
            String label = direct ? label((String) args[0]) : preparedLabel;
            SqlWatch.Kind kind = direct ? kind((String) args[0]) : preparedKind;
            count((name.equals("executeBatch") ? "sql batch " : "sql ") + label);
            long start = System.nanoTime();
            transaction.statement(kind, start);
            Object result = invoke(target, method, args);
            SqlWatch.executed(kind, name.equals("executeQuery") ? 0 : SqlWatch.affected(result),
                    System.nanoTime() - start);
            return result;
        };
        return Proxy.newProxyInstance(ClientCounters.class.getClassLoader(), new Class<?>[] { type }, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }
}
