package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The raw ceiling's statements, done by hand on plain JDBC: the library's claim ({@code SELECT ... FOR UPDATE SKIP
 * LOCKED} by due time or by ids, the {@code RUNNING} compare-and-set, the commit) and its success write, on
 * {@link Ceiling#TABLE}, each phase timed. The SQL is the library's own, as {@link RawSql} holds it.
 */
final class RawClaims {

    /** The lease a raw claim takes, as the starter's default. */
    private static final long LEASE_MILLIS = 30_000;

    private RawClaims() {
    }

    /** One claimed row: its id and the claim number the RUNNING update gave it, which the completion must match. */
    record Claim(long id, long claim) {
    }

    interface ClaimRound {
        List<Claim> run() throws SQLException;
    }

    /** A claim that lost a deadlock is rolled back and tried again, as the library does. */
    static List<Claim> retrying(Connection connection, AtomicLong deadlocks, ClaimRound claim)
            throws SQLException {
        for (int attempt = 1;; attempt++) {
            try {
                return claim.run();
            }
            catch (SQLTransactionRollbackException ex) {
                connection.rollback();
                deadlocks.incrementAndGet();
                if (attempt == 5) {
                    throw ex;
                }
            }
        }
    }

    /** Time spent per phase, summed over all threads. */
    static final class Phases {

        final LongAdder pop = new LongAdder();

        final LongAdder select = new LongAdder();

        final LongAdder update = new LongAdder();

        final LongAdder commit = new LongAdder();

        final LongAdder completes = new LongAdder();

        final LongAdder completeUpdate = new LongAdder();
    }

    static List<Claim> claimDue(Connection connection, int batch, long now, String owner, Phases phases)
            throws SQLException {
        List<Claim> ids = new ArrayList<>(batch);
        long start = System.nanoTime();
        try (PreparedStatement ps = connection
            .prepareStatement(RawSql.SELECT_DUE_FOR_CLAIM.formatted(Ceiling.TABLE))) {
            ps.setString(1, "SCHEDULED");
            ps.setLong(2, now);
            ps.setInt(3, batch);
            readClaimed(ps, ids);
        }
        finishClaim(connection, ids, now, owner, phases, start);
        return ids;
    }

    private static void finishClaim(Connection connection, List<Claim> ids, long now, String owner, Phases phases,
            long start) throws SQLException {
        long selected = System.nanoTime();
        phases.select.add(selected - start);
        markRunning(connection, ids, now, owner);
        long updated = System.nanoTime();
        phases.update.add(updated - selected);
        connection.commit();
        phases.commit.add(System.nanoTime() - updated);
    }

    static List<Claim> claimIds(Connection connection, List<Long> candidates, long now, String owner,
            Phases phases) throws SQLException {
        long start = System.nanoTime();
        List<Claim> ids = new ArrayList<>(candidates.size());
        try (PreparedStatement ps = connection.prepareStatement(RawSql.SELECT_IDS_FOR_CLAIM.formatted(Ceiling.TABLE,
                RawSql.placeholders(candidates.size())))) {
            int p = 1;
            for (Long id : candidates) {
                ps.setLong(p++, id);
            }
            ps.setLong(p, now);
            readClaimed(ps, ids);
        }
        finishClaim(connection, ids, now, owner, phases, start);
        return ids;
    }

    /**
     * Reads every claimed column, as the library's row mapper does; the claim this round makes is the row's
     * {@code claims} plus one (the RUNNING update adds it under the lock the read took).
     */
    private static void readClaimed(PreparedStatement ps, List<Claim> ids) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long id = rs.getLong("id");
                rs.getString("task_type");
                rs.getString("task_key");
                rs.getString("payload");
                rs.getLong("due_at");
                rs.getInt("attempts");
                rs.getInt("max_attempts");
                long claims = rs.getLong("claims");
                rs.getLong("created_at");
                rs.getString("trace_context");
                ids.add(new Claim(id, claims + 1));
            }
        }
    }

    private static void markRunning(Connection connection, List<Claim> ids, long now, String owner)
            throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement(RawSql.MARK_RUNNING.formatted(Ceiling.TABLE,
                RawSql.placeholders(ids.size())))) {
            ps.setString(1, owner);
            ps.setLong(2, now + LEASE_MILLIS);
            ps.setLong(3, now);
            int p = 4;
            for (Claim claim : ids) {
                ps.setLong(p++, claim.id());
            }
            int updated = ps.executeUpdate();
            if (updated != ids.size()) {
                throw new IllegalStateException("raw claim updated " + updated + " of " + ids.size() + " locked rows");
            }
        }
    }

    /**
     * The library's success write: the ids (so the primary key range is used), then the (id, claim) pairs that must
     * match; the start time and the attempt are set here as well, since no start was written before it.
     */
    static void complete(Connection connection, List<Claim> claims, Phases phases) throws SQLException {
        long start = System.nanoTime();
        try (PreparedStatement ps = connection.prepareStatement(RawSql.MARK_SUCCEEDED.formatted(Ceiling.TABLE,
                RawSql.placeholders(claims.size()), RawSql.pairPlaceholders(claims.size())))) {
            long now = System.currentTimeMillis();
            ps.setLong(1, now); // started_at, when none was written
            ps.setLong(2, now); // updated_at
            int p = 3;
            for (Claim claim : claims) {
                ps.setLong(p++, claim.id());
            }
            for (Claim claim : claims) {
                ps.setLong(p++, claim.id());
                ps.setLong(p++, claim.claim());
            }
            int updated = ps.executeUpdate();
            if (updated != claims.size()) {
                // the ceiling's claims are never lost, so every one must match: else the claim numbers are wrong
                throw new IllegalStateException("raw completion matched " + updated + " of " + claims.size()
                        + " claims");
            }
        }
        phases.completes.increment();
        phases.completeUpdate.add(System.nanoTime() - start);
    }
}
