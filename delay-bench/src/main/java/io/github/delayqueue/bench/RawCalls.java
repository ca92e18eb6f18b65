package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;

/**
 * The raw loops a single {@code schedule()} is compared with: the same threads making, by hand, what one call makes
 * the servers do. Each thread has a plain JDBC connection of its own (same driver, URL and credentials as the
 * instances' pool) and, in hybrid mode, a Redis session; per call:
 *
 * <ul>
 * <li>{@link #single}: the library's one-row INSERT, autocommitted, the id read back as the library does, then in
 * hybrid mode one add.lua for it (the library's own script, from its jar);</li>
 * <li>{@link #inTransaction}: the business-row variant by hand: INSERT the business row, the same task INSERT,
 * COMMIT, then the add.lua.</li>
 * </ul>
 *
 * Rows go to the ceiling's table and a table like {@code bench_order} of its own, ids to the ceiling's key. Each loop
 * makes a few hundred untimed calls first, so what is timed is the loop at its best: a ceiling.
 */
final class RawCalls {

    static final String ORDER_TABLE = "bench_ceiling_order";

    private final Servers servers;

    private final String database;

    private final Ceiling ceiling;

    private final RedisTarget redis;

    /** @param redis the run's Redis in hybrid mode, null in jdbc mode */
    RawCalls(Servers servers, String database, Ceiling ceiling, RedisTarget redis) {
        this.servers = servers;
        this.database = database;
        this.ceiling = ceiling;
        this.redis = redis;
    }

    /** The raw single-call loop: {@code raw_single_per_s} and {@code raw_single_call_*}. */
    Map<String, Object> single(int n, int threads, long dueAt) throws Exception {
        return loop("raw-single", n, threads, dueAt, false, "raw_single_per_s", "raw_single_call_");
    }

    /** The raw business-row transaction loop: {@code raw_tx_per_s} and {@code raw_tx_call_*}. */
    Map<String, Object> inTransaction(int n, int threads, long dueAt) throws Exception {
        try (Connection connection = servers.connect(database); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + ORDER_TABLE);
            statement.execute("CREATE TABLE " + ORDER_TABLE + " LIKE " + BusinessRow.TABLE);
        }
        try {
            return loop("raw-tx", n, threads, dueAt, true, "raw_tx_per_s", "raw_tx_call_");
        }
        finally {
            try (Connection connection = servers.connect(database);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + ORDER_TABLE);
            }
        }
    }

    private Map<String, Object> loop(String name, int n, int threads, long dueAt, boolean tx, String rateKey,
            String latencyPrefix) throws Exception {
        Calls.Callers callers = thread -> new RawCaller(dueAt, tx);
        Calls.run(name + "-warmup", Math.min(n, Math.max(threads * 20, 200)), threads, callers);
        Calls.Times times = Calls.run(name, n, threads, callers);
        Map<String, Object> result = new LinkedHashMap<>();
        times.describe(rateKey, latencyPrefix, result);
        return result;
    }

    /** One thread's connection, Redis session and statements. */
    private final class RawCaller implements Calls.Caller {

        private final long dueAt;

        private final boolean tx;

        private final String status;

        private final Connection connection;

        private final RawInsert insert;

        private final RedisTarget.Session session;

        private final RedisScriptingCommands<String, String> scripting;

        private final String add;

        RawCaller(long dueAt, boolean tx) throws SQLException {
            this.dueAt = dueAt;
            this.tx = tx;
            this.status = redis != null ? "QUEUED" : "SCHEDULED";
            this.connection = servers.connect(database);
            this.insert = RawInsert.on(connection, Ceiling.TABLE);
            // the business transaction keeps the server's isolation, as a @Transactional method does by default
            connection.setAutoCommit(!tx);
            this.session = redis == null ? null : redis.open();
            this.scripting = session == null ? null : session.scripting;
            this.add = scripting == null ? null : scripting.scriptLoad(Ceiling.lua("add.lua"));
        }

        @Override
        public void call(int slot) throws Exception {
            if (tx) {
                try (PreparedStatement ps = connection.prepareStatement(BusinessRow.insertInto(ORDER_TABLE))) {
                    ps.setLong(1, System.currentTimeMillis());
                    ps.executeUpdate();
                }
            }
            long id = insert.insert(connection, 1, slot, dueAt, status).get(0);
            if (tx) {
                connection.commit();
            }
            if (scripting != null) {
                scripting.evalsha(add, ScriptOutputType.INTEGER, new String[] { ceiling.key() },
                        ceiling.wakeChannel(), Long.toString(dueAt), Long.toString(id));
            }
        }

        @Override
        public void close() throws Exception {
            try {
                connection.close();
            }
            finally {
                if (session != null) {
                    session.close();
                }
            }
        }
    }
}
