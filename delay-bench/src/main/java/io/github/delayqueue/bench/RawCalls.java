package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The raw loops a single {@code schedule()} is compared with: the same threads making, by hand, what one call makes
 * the servers do. Per call:
 *
 * <ul>
 * <li>{@link #single}: the library's one-row INSERT, autocommitted, the id read back as the library does, then in
 * hybrid mode one add.lua for it (the library's own script, from its jar);</li>
 * <li>{@link #inTransaction}: the business-row variant by hand on plain JDBC: INSERT the business row, the same task
 * INSERT, COMMIT, then the add.lua;</li>
 * <li>{@link #inAppTransaction}: the same transaction as a Spring application writes it by hand: a
 * {@link TransactionTemplate} of the instance's own transaction manager on its pooled DataSource (the beans the
 * measured calls use), the business row by {@link JdbcTemplate}, the task INSERT on the transaction's connection,
 * then, after the commit, the add.lua.</li>
 * </ul>
 *
 * The first two give each thread a plain JDBC connection of its own (same driver, URL and credentials as the
 * instances' pool), opened once, in the autocommit mode its loop needs, so they pay no pool checkout and no
 * autocommit switch per call; the third pays both, as the library's calls in a transaction do. In hybrid mode each
 * thread has a Redis session. Keyed loops bind a key of their own to every row ({@link RawInsert}): one INSERT that
 * the unique index guards, no look-up. Rows go to the ceiling's table and a table like {@code bench_order} of its
 * own, ids to the ceiling's key. Each loop makes {@link #warmupCalls} untimed calls first, so what is timed is the
 * loop at its best: a ceiling.
 */
final class RawCalls {

    static final String ORDER_TABLE = "bench_ceiling_order";

    private final Servers servers;

    private final String database;

    private final Ceiling ceiling;

    private final RedisTarget redis;

    private final boolean keyed;

    /**
     * @param redis the run's Redis in hybrid mode, null in jdbc mode
     * @param keyed whether every row carries a key of its own
     */
    RawCalls(Servers servers, String database, Ceiling ceiling, RedisTarget redis, boolean keyed) {
        this.servers = servers;
        this.database = database;
        this.ceiling = ceiling;
        this.redis = redis;
        this.keyed = keyed;
    }

    /** The untimed calls each loop makes before its {@code n} timed ones, from the same threads. */
    static int warmupCalls(int n, int threads) {
        return Math.min(n, Math.max(threads * 20, 200));
    }

    /** The raw single-call loop: {@code raw_single_per_s} and {@code raw_single_call_*}. */
    Map<String, Object> single(int n, int threads, long dueAt) throws Exception {
        return loop("raw-single", n, threads, run -> thread -> new RawCaller(run, dueAt, false), "raw_single_per_s",
                "raw_single_call_");
    }

    /**
     * The raw single-call loop with no untimed calls before it, for a JVM that has made none yet ({@code --cold-raw}):
     * {@code raw_cold_single_per_s} and {@code raw_cold_single_call_*}.
     */
    Map<String, Object> coldSingle(int n, int threads, long dueAt) throws Exception {
        Calls.Times times = Calls.run("raw-cold-single", n, threads,
                thread -> new RawCaller("raw-cold-single", dueAt, false));
        Map<String, Object> result = new LinkedHashMap<>();
        times.describe("raw_cold_single_per_s", "raw_cold_single_call_", result);
        return result;
    }

    /** The raw business-row transaction loop on plain JDBC: {@code raw_tx_per_s} and {@code raw_tx_call_*}. */
    Map<String, Object> inTransaction(int n, int threads, long dueAt) throws Exception {
        createOrderTable();
        try {
            return loop("raw-tx", n, threads, run -> thread -> new RawCaller(run, dueAt, true), "raw_tx_per_s",
                    "raw_tx_call_");
        }
        finally {
            dropOrderTable();
        }
    }

    /**
     * The business-row transaction written as a Spring application writes it, on the instance's own beans:
     * {@code raw_app_tx_per_s} and {@code raw_app_tx_call_*}. The instance must still be running (its pool open).
     */
    Map<String, Object> inAppTransaction(int n, int threads, long dueAt, PlatformTransactionManager transactions,
            DataSource dataSource) throws Exception {
        createOrderTable();
        try {
            TransactionTemplate tx = new TransactionTemplate(transactions);
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            RawInsert insert = jdbc.execute((ConnectionCallback<RawInsert>) c -> RawInsert.on(c, Ceiling.TABLE));
            return loop("raw-app-tx", n, threads, run -> thread -> new AppTxCaller(run, dueAt, tx, jdbc, insert),
                    "raw_app_tx_per_s", "raw_app_tx_call_");
        }
        finally {
            dropOrderTable();
        }
    }

    private void createOrderTable() throws SQLException {
        try (Connection connection = servers.connect(database); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + ORDER_TABLE);
            statement.execute("CREATE TABLE " + ORDER_TABLE + " LIKE " + BusinessRow.TABLE);
        }
    }

    private void dropOrderTable() throws SQLException {
        try (Connection connection = servers.connect(database); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + ORDER_TABLE);
        }
    }

    /** A loop's callers, given the loop's name (its keys start with it, so no two loops share a key). */
    private interface Named {
        Calls.Callers callers(String run);
    }

    private Map<String, Object> loop(String name, int n, int threads, Named callers, String rateKey,
            String latencyPrefix) throws Exception {
        Calls.run(name + "-warmup", warmupCalls(n, threads), threads, callers.callers(name + "-warmup"));
        Calls.Times times = Calls.run(name, n, threads, callers.callers(name));
        Map<String, Object> result = new LinkedHashMap<>();
        times.describe(rateKey, latencyPrefix, result);
        return result;
    }

    private String keyPrefix(String run) {
        return keyed ? "k-" + run + "-" : null;
    }

    private String status() {
        return redis != null ? "QUEUED" : "SCHEDULED";
    }

    /** One thread's Redis session and add.lua, in hybrid mode. */
    private final class Index implements AutoCloseable {

        private final RedisTarget.Session session;

        private final RedisScriptingCommands<String, String> scripting;

        private final String add;

        Index() {
            this.session = redis == null ? null : redis.open();
            this.scripting = session == null ? null : session.scripting;
            this.add = scripting == null ? null : scripting.scriptLoad(Ceiling.lua("add.lua"));
        }

        void add(long id, long dueAt) {
            if (scripting != null) {
                scripting.evalsha(add, ScriptOutputType.INTEGER, new String[] { ceiling.key() },
                        ceiling.wakeChannel(), Long.toString(dueAt), Long.toString(id));
            }
        }

        @Override
        public void close() {
            if (session != null) {
                session.close();
            }
        }
    }

    /** One thread's plain connection, Redis session and statements. */
    private final class RawCaller implements Calls.Caller {

        private final long dueAt;

        private final boolean tx;

        private final String keyPrefix;

        private final Connection connection;

        private final RawInsert insert;

        private final Index index;

        RawCaller(String run, long dueAt, boolean tx) throws SQLException {
            this.dueAt = dueAt;
            this.tx = tx;
            this.keyPrefix = keyPrefix(run);
            this.connection = servers.connect(database);
            this.insert = RawInsert.on(connection, Ceiling.TABLE);
            // the business transaction keeps the server's isolation, as a @Transactional method does by default
            connection.setAutoCommit(!tx);
            this.index = new Index();
        }

        @Override
        public void call(int slot) throws Exception {
            if (tx) {
                try (PreparedStatement ps = connection.prepareStatement(BusinessRow.insertInto(ORDER_TABLE))) {
                    ps.setLong(1, System.currentTimeMillis());
                    ps.executeUpdate();
                }
            }
            long id = insert.insert(connection, 1, slot, dueAt, status(), keyPrefix).get(0);
            if (tx) {
                connection.commit();
            }
            index.add(id, dueAt);
        }

        @Override
        public void close() throws Exception {
            try {
                connection.close();
            }
            finally {
                index.close();
            }
        }
    }

    /**
     * One thread of the hand-written Spring transaction: the template and the JdbcTemplate are shared (both are
     * thread-safe), the Redis session is the thread's.
     */
    private final class AppTxCaller implements Calls.Caller {

        private final long dueAt;

        private final String keyPrefix;

        private final TransactionTemplate tx;

        private final JdbcTemplate jdbc;

        private final RawInsert insert;

        private final String insertOrder = BusinessRow.insertInto(ORDER_TABLE);

        private final Index index;

        AppTxCaller(String run, long dueAt, TransactionTemplate tx, JdbcTemplate jdbc, RawInsert insert) {
            this.dueAt = dueAt;
            this.keyPrefix = keyPrefix(run);
            this.tx = tx;
            this.jdbc = jdbc;
            this.insert = insert;
            this.index = new Index();
        }

        @Override
        public void call(int slot) {
            Long id = tx.execute(transaction -> {
                jdbc.update(insertOrder, System.currentTimeMillis());
                // on the transaction's connection, as the library's insert runs in its caller's transaction
                return jdbc.execute((ConnectionCallback<Long>) c -> insert.insert(c, 1, slot, dueAt, status(),
                        keyPrefix).get(0));
            });
            // committed: the index add after the commit, as the library's
            index.add(Objects.requireNonNull(id, "the task's id"), dueAt);
        }

        @Override
        public void close() {
            index.close();
        }
    }
}
