package io.github.delayqueue.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;

/**
 * The raw ceiling: what the library's hot path sends, claim and complete (and, in hybrid mode, its Lua pop), done
 * in tight loops with plain JDBC and Lettuce, no Spring, no engine. Per instance of the run, one claiming thread
 * (pop.lua, then {@code SELECT ... FOR UPDATE SKIP LOCKED} by the popped ids and the {@code RUNNING} compare-and-set
 * that takes the next claim number, in one transaction; jdbc mode: the same by due time) and one completing thread
 * (the {@code SUCCEEDED} update of up to 1,000 claims, each matched by id and claim number, which also counts the
 * attempt), as the engine's dispatcher and result writer do when a handler's start and end fall in one result
 * batch, the usual case in a burst. This class loads the rows and runs the threads; the statements are
 * {@link RawClaims}' and {@link RawInsert}'s, the library's own SQL. Connections stay in manual-commit mode,
 * statements are prepared by the same driver with the same URL. It runs on a table of its own
 * ({@code CREATE TABLE ... LIKE} the task table).
 */
final class Ceiling {

    static final String TABLE = "bench_ceiling";

    /** Rows per multi-row INSERT and per SUCCEEDED update, as in the library's store and ResultWriter. */
    private static final int MAX_ROWS = 1000;

    /** Entries per add.lua call, as in RedisTimeIndex. */
    private static final int MAX_ADD = 500;

    private final Servers servers;

    private final String database;

    private final String keyPrefix;

    private final boolean hybrid;

    /** The run's Redis (one server or a cluster: the ceiling's key has one hash tag, so one node); null in jdbc. */
    private final RedisTarget redisTarget;

    Ceiling(Servers servers, String database, String keyPrefix, RedisTarget redis) {
        this.servers = servers;
        this.database = database;
        this.keyPrefix = keyPrefix;
        this.hybrid = redis != null;
        this.redisTarget = redis;
    }

    /** The ceiling's sorted set: one hash tag, so one cluster node, like one shard of the library's index. */
    String key() {
        return keyPrefix + ":ceiling:{" + keyPrefix + ":ceiling}";
    }

    /** The channel add.lua announces a new head on; nobody listens to the ceiling's. */
    String wakeChannel() {
        return keyPrefix + ":ceiling-wake";
    }

    /** A Lua script of the library's index, read from the library's jar. */
    static String lua(String name) {
        try (InputStream in = Ceiling.class.getClassLoader()
            .getResourceAsStream("io/github/delayqueue/index/" + name)) {
            if (in == null) {
                throw new IllegalStateException("io/github/delayqueue/index/" + name + " not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    void dropTable() throws SQLException {
        try (Connection connection = servers.connect(database); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + TABLE);
        }
    }

    /** A fresh copy of the task table's shape, empty. */
    void createTable(String likeTable) throws SQLException {
        try (Connection connection = servers.connect(database); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + TABLE);
            statement.execute("CREATE TABLE " + TABLE + " LIKE " + likeTable);
        }
    }

    /**
     * Inserts {@code n} due rows with the library's multi-row INSERT (1,000 rows a statement, auto-commit) and, in
     * hybrid mode, indexes them with add.lua (500 a call). Returns timings.
     */
    Map<String, Object> load(int n, long dueAt) throws SQLException {
        Map<String, Object> result = new LinkedHashMap<>();
        String status = hybrid ? "QUEUED" : "SCHEDULED";
        List<Long> ids = new ArrayList<>(n);
        long start = System.nanoTime();
        try (Connection connection = servers.connect(database)) {
            RawInsert insert = RawInsert.on(connection, TABLE);
            for (int from = 0; from < n; from += MAX_ROWS) {
                ids.addAll(insert.insert(connection, Math.min(MAX_ROWS, n - from), from, dueAt, status));
            }
        }
        long inserted = System.nanoTime();
        result.put("raw_insert_per_s", Stats.round(n / seconds(inserted - start)));
        if (hybrid) {
            try (RedisTarget.Session session = redisTarget.open()) {
                RedisScriptingCommands<String, String> redis = session.scripting;
                String add = redis.scriptLoad(lua("add.lua"));
                long addStart = System.nanoTime();
                for (int from = 0; from < ids.size(); from += MAX_ADD) {
                    List<String> args = new ArrayList<>();
                    args.add(wakeChannel());
                    for (Long id : ids.subList(from, Math.min(ids.size(), from + MAX_ADD))) {
                        args.add(Long.toString(dueAt));
                        args.add(Long.toString(id));
                    }
                    redis.evalsha(add, ScriptOutputType.INTEGER, new String[] { key() }, args.toArray(String[]::new));
                }
                long added = System.nanoTime();
                result.put("raw_index_add_per_s", Stats.round(n / seconds(added - addStart)));
                result.put("raw_enqueue_per_s", Stats.round(n / seconds(added - addStart + inserted - start)));
            }
        }
        else {
            result.put("raw_enqueue_per_s", result.get("raw_insert_per_s"));
        }
        return result;
    }

    /**
     * Claims and completes all {@code n} loaded rows with {@code claimers} claiming threads (each with its own
     * completing thread), {@code batch} rows per claim. Returns claim and complete rates.
     */
    Map<String, Object> drain(int n, int batch, int claimers, long deadlineNanos) throws Exception {
        AtomicInteger claimed = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        AtomicLong claimRounds = new AtomicLong();
        AtomicLong emptyRounds = new AtomicLong();
        AtomicLong lastClaimNanos = new AtomicLong();
        AtomicLong lastCompleteNanos = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong deadlocks = new AtomicLong();
        AtomicLong skipped = new AtomicLong();
        RawClaims.Phases phases = new RawClaims.Phases();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(claimers * 2);
        CountDownLatch go = new CountDownLatch(1);
        long[] startNanos = new long[1];
        for (int c = 0; c < claimers; c++) {
            String owner = "ceiling-" + c;
            BlockingQueue<List<RawClaims.Claim>> done = new ArrayBlockingQueue<>(100_000);
            Thread claimer = new Thread(() -> {
                try (Connection connection = servers.connect(database);
                        RedisTarget.Session redisSession = hybrid ? redisTarget.open() : null) {
                    connection.setAutoCommit(false);
                    // As the library's claims: READ COMMITTED, so SKIP LOCKED claims take no gap locks.
                    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                    RedisScriptingCommands<String, String> redis = redisSession == null ? null
                            : redisSession.scripting;
                    String pop = redis == null ? null : redis.scriptLoad(lua("pop.lua"));
                    String add = redis == null ? null : redis.scriptLoad(lua("add.lua"));
                    ready.countDown();
                    go.await();
                    while (claimed.get() < n && failure.get() == null) {
                        if (System.nanoTime() > deadlineNanos) {
                            throw new IllegalStateException("ceiling did not finish in time: " + claimed.get()
                                    + " of " + n + " claimed");
                        }
                        long now = System.currentTimeMillis();
                        List<RawClaims.Claim> ids;
                        if (redis != null) {
                            long popStart = System.nanoTime();
                            List<Object> popped = redis.evalsha(pop, ScriptOutputType.MULTI,
                                    new String[] { key() }, Long.toString(now), Integer.toString(batch));
                            phases.pop.add(System.nanoTime() - popStart);
                            List<Long> candidates = new ArrayList<>(popped.size());
                            for (int i = 1; i < popped.size(); i++) {
                                candidates.add(Long.parseLong(String.valueOf(popped.get(i))));
                            }
                            if (candidates.isEmpty()) {
                                emptyRounds.incrementAndGet();
                                if (String.valueOf(popped.get(0)).isEmpty()) {
                                    break; // the index is empty: the other claimers hold the rest
                                }
                                continue;
                            }
                            ids = RawClaims.retrying(connection, deadlocks,
                                    () -> RawClaims.claimIds(connection, candidates, now, owner, phases));
                            if (ids.size() < candidates.size()) {
                                // SKIP LOCKED passed over a row another transaction held for a moment; the
                                // library drops such ids and its sweep finds the row later; here they go back.
                                List<String> back = new ArrayList<>();
                                back.add(wakeChannel());
                                java.util.Set<Long> taken = new java.util.HashSet<>();
                                ids.forEach(claim -> taken.add(claim.id()));
                                for (Long id : candidates) {
                                    if (!taken.contains(id)) {
                                        back.add(Long.toString(now));
                                        back.add(Long.toString(id));
                                    }
                                }
                                skipped.addAndGet((back.size() - 1) / 2);
                                redis.evalsha(add, ScriptOutputType.INTEGER, new String[] { key() },
                                        back.toArray(String[]::new));
                            }
                            if (ids.isEmpty()) {
                                continue;
                            }
                        }
                        else {
                            ids = RawClaims.retrying(connection, deadlocks,
                                    () -> RawClaims.claimDue(connection, batch, now, owner, phases));
                            if (ids.isEmpty()) {
                                emptyRounds.incrementAndGet();
                                continue;
                            }
                        }
                        claimRounds.incrementAndGet();
                        if (claimed.addAndGet(ids.size()) >= n) {
                            lastClaimNanos.set(System.nanoTime());
                        }
                        done.put(ids);
                    }
                }
                catch (Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
                finally {
                    done.offer(List.of());
                }
            }, "ceiling-claim-" + c);
            Thread completer = new Thread(() -> {
                // As the library's result writer: one auto-committed UPDATE per batch of up to 1,000 claims.
                try (Connection connection = servers.connect(database)) {
                    ready.countDown();
                    go.await();
                    List<List<RawClaims.Claim>> batches = new ArrayList<>();
                    boolean end = false;
                    while (!end && failure.get() == null) {
                        List<RawClaims.Claim> first = done.poll(100, TimeUnit.MILLISECONDS);
                        if (first == null) {
                            if (completed.get() >= n) {
                                break;
                            }
                            continue;
                        }
                        batches.clear();
                        batches.add(first);
                        done.drainTo(batches);
                        List<RawClaims.Claim> ids = new ArrayList<>();
                        for (List<RawClaims.Claim> b : batches) {
                            if (b.isEmpty()) {
                                end = true;
                            }
                            ids.addAll(b);
                        }
                        for (int from = 0; from < ids.size(); from += MAX_ROWS) {
                            List<RawClaims.Claim> part = ids.subList(from, Math.min(ids.size(), from + MAX_ROWS));
                            RawClaims.complete(connection, part, phases);
                            if (completed.addAndGet(part.size()) >= n) {
                                lastCompleteNanos.set(System.nanoTime());
                            }
                        }
                    }
                }
                catch (Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            }, "ceiling-complete-" + c);
            threads.add(claimer);
            threads.add(completer);
        }
        threads.forEach(Thread::start);
        ready.await();
        startNanos[0] = System.nanoTime();
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("The raw ceiling failed: " + failure.get(), failure.get());
        }
        if (claimed.get() != n || completed.get() != n) {
            throw new IllegalStateException("The raw ceiling claimed " + claimed.get() + " and completed "
                    + completed.get() + " of " + n + " rows");
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("ceiling_claimers", claimers);
        result.put("ceiling_batch", batch);
        result.put("ceiling_claim_rounds", claimRounds.get());
        result.put("ceiling_empty_rounds", emptyRounds.get());
        result.put("ceiling_deadlocks_retried", deadlocks.get());
        result.put("ceiling_skipped_locked", skipped.get());
        result.put("ceiling_claimed", claimed.get());
        result.put("ceiling_completed", completed.get());
        long rounds = Math.max(1, claimRounds.get());
        result.put("ceiling_ms_per_claim_round", Map.of("pop", ms(phases.pop.sum(), rounds),
                "select_for_update", ms(phases.select.sum(), rounds), "update_running", ms(phases.update.sum(), rounds),
                "commit", ms(phases.commit.sum(), rounds)));
        long completes = Math.max(1, phases.completes.sum());
        result.put("ceiling_complete_batches", phases.completes.sum());
        result.put("ceiling_ms_per_complete_batch", ms(phases.completeUpdate.sum(), completes));
        result.put("ceiling_claim_per_s", Stats.round(n / seconds(lastClaimNanos.get() - startNanos[0])));
        result.put("ceiling_complete_per_s", Stats.round(n / seconds(lastCompleteNanos.get() - startNanos[0])));
        return result;
    }

    private static double ms(long nanos, long count) {
        return Stats.round(nanos / 1e6 / count);
    }

    static double seconds(long nanos) {
        return Math.max(1, nanos) / 1e9;
    }
}
