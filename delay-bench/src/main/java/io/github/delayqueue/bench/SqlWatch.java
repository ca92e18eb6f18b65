package io.github.delayqueue.bench;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the library does not report about itself, read off its statements by the {@link ClientCounters} proxy: how
 * long each claim round takes (from its locking {@code SELECT} to its {@code COMMIT}, on the claim connection), how
 * many tasks the rounds claimed, how many rows the purge deleted and how long its statements took, and how many
 * tasks were marked {@code SUCCEEDED}. Statements are recognized by their shape, so a change of the library's SQL
 * that keeps these shapes keeps the numbers. One set for the whole JVM, like the counters; readers take the
 * difference between two {@link Mark}s, so the whole run and each soak interval can be read alike.
 */
final class SqlWatch {

    private static final LongAdder purgedRows = new LongAdder();

    private static final LongAdder succeededRows = new LongAdder();

    private static final LongAdder claimedRows = new LongAdder();

    private static final Durations claimRounds = new Durations();

    private static final Durations purges = new Durations();

    private SqlWatch() {
    }

    /** The running totals at one moment; two of them make a {@link Window}. */
    record Mark(long purgedRows, long succeededRows, long claimedRows, int claimRounds, int purges) {
    }

    /** What happened between two marks. */
    record Window(long purgedRows, long succeededRows, long claimedRows, long[] claimRoundNanos,
            long[] purgeNanos) {
    }

    /** Forgets everything: called when a run's measurement starts. */
    static void reset() {
        purgedRows.reset();
        succeededRows.reset();
        claimedRows.reset();
        claimRounds.clear();
        purges.clear();
    }

    static Mark mark() {
        return new Mark(purgedRows.sum(), succeededRows.sum(), claimedRows.sum(), claimRounds.size(), purges.size());
    }

    static Window between(Mark from, Mark to) {
        return new Window(to.purgedRows - from.purgedRows, to.succeededRows - from.succeededRows,
                to.claimedRows - from.claimedRows, claimRounds.range(from.claimRounds, to.claimRounds),
                purges.range(from.purges, to.purges));
    }

    /**
     * A window's numbers: claim rounds with their time per round (mean, p50, p99, max) and tasks per round, rows
     * purged with the purge statements' count and longest time, and tasks marked SUCCEEDED.
     */
    static void describe(Window window, Map<String, Object> result) {
        long[] rounds = window.claimRoundNanos();
        double[] ms = new double[rounds.length];
        for (int i = 0; i < rounds.length; i++) {
            ms[i] = rounds[i] / 1e6;
        }
        double[] sorted = Stats.sorted(ms);
        result.put("claim_rounds", rounds.length);
        result.put("claim_round_mean_ms", Stats.round(Stats.mean(sorted)));
        Stats.percentiles(result, "claim_round_", sorted, false);
        result.put("claimed_per_round", rounds.length == 0 ? null
                : Stats.round((double) window.claimedRows() / rounds.length));
        long longestPurge = 0;
        for (long purge : window.purgeNanos()) {
            longestPurge = Math.max(longestPurge, purge);
        }
        result.put("purged_rows", window.purgedRows());
        result.put("purge_statements", window.purgeNanos().length);
        result.put("purge_max_ms", window.purgeNanos().length == 0 ? null : Stats.round(longestPurge / 1e6));
        result.put("succeeded_rows", window.succeededRows());
    }

    /** Durations in nanoseconds, appended by any thread, read by index range. */
    private static final class Durations {

        private long[] values = new long[1024];

        private int size;

        synchronized void add(long nanos) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = nanos;
        }

        synchronized int size() {
            return size;
        }

        synchronized long[] range(int from, int to) {
            return Arrays.copyOfRange(values, Math.min(from, size), Math.min(to, size));
        }

        synchronized void clear() {
            values = new long[1024];
            size = 0;
        }
    }

    // --- shapes ---------------------------------------------------------------------------------------------------

    /** What a statement is, for the watch. */
    enum Kind {
        /** A claim's locking read: it reads the payload (migration, lease recovery and the rest do not). */
        CLAIM_SELECT,
        MARK_RUNNING,
        MARK_SUCCEEDED,
        PURGE,
        OTHER
    }

    /** {@code shape}: the statement with its whitespace collapsed, whole. */
    static Kind kind(String shape) {
        if (shape == null) {
            return Kind.OTHER;
        }
        // a claim of several types is a UNION ALL of parenthesized parts, one per type
        if ((shape.startsWith("SELECT") || shape.startsWith("(SELECT")) && shape.contains("payload")
                && shape.contains("FOR UPDATE SKIP LOCKED")) {
            return Kind.CLAIM_SELECT;
        }
        if (shape.startsWith("UPDATE") && shape.contains("SET status = 'RUNNING'")) {
            return Kind.MARK_RUNNING;
        }
        if (shape.startsWith("UPDATE") && shape.contains("SET status = 'SUCCEEDED'")) {
            return Kind.MARK_SUCCEEDED;
        }
        if (shape.startsWith("DELETE FROM")) {
            return Kind.PURGE;
        }
        return Kind.OTHER;
    }

    // --- hooks -----------------------------------------------------------------------------------------------------

    /** A statement ran: {@code affected} rows (0 for a query), in {@code nanos}. */
    static void executed(Kind kind, long affected, long nanos) {
        switch (kind) {
            case PURGE -> {
                purgedRows.add(affected);
                purges.add(nanos);
            }
            case MARK_RUNNING -> claimedRows.add(affected);
            case MARK_SUCCEEDED -> succeededRows.add(affected);
            default -> {
            }
        }
    }

    static void claimRound(long nanos) {
        claimRounds.add(nanos);
    }

    /** Rows an execute call changed, whatever it returned. */
    static long affected(Object result) {
        if (result instanceof Integer i) {
            return Math.max(0, i);
        }
        if (result instanceof Long l) {
            return Math.max(0, l);
        }
        long sum = 0;
        if (result instanceof int[] counts) {
            for (int c : counts) {
                sum += Math.max(0, c);
            }
        }
        else if (result instanceof long[] counts) {
            for (long c : counts) {
                sum += Math.max(0, c);
            }
        }
        return sum;
    }

    /** One connection's open claim round, if any; a connection is used by one thread at a time. */
    static final class Transaction {

        private long claimStartNanos;

        void statement(Kind kind, long startNanos) {
            if (claimStartNanos == 0 && kind == Kind.CLAIM_SELECT) {
                claimStartNanos = startNanos;
            }
        }

        /** The transaction ended (commit or rollback). */
        void ended() {
            if (claimStartNanos != 0) {
                claimRound(System.nanoTime() - claimStartNanos);
                claimStartNanos = 0;
            }
        }
    }
}
