package io.github.delayqueue.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.github.delayqueue.api.TaskStatus;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes what became of claims: started, finished, renewed, handed back, or expired. Every write is a compare-and-set
 * on the claim ({@link ClaimId}: the row's id and claim number), so a claim that was lost meanwhile changes nothing.
 * Claims are written up to {@value #MAX_ROWS_PER_STATEMENT} a statement. A failure's statement also appends its error
 * to the task's {@code error_history} ({@link ErrorHistory}), so keeping every attempt's error costs no statement.
 */
final class ClaimWrites {

    /** Rows per statement that names rows by id. */
    private static final int MAX_ROWS_PER_STATEMENT = 1000;

    private final JdbcTemplate jdbc;

    private final TransactionTemplate tx;

    private final String table;

    private final String markRetry;

    private final String markFailed;

    private final String markParked;

    private final String selectExpired;

    /**
     * @param tx the store's READ COMMITTED transactions, on the data source {@code jdbc} uses
     * @param table the quoted table name
     */
    ClaimWrites(JdbcTemplate jdbc, TransactionTemplate tx, String table) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.table = table;
        this.markRetry = TaskSql.MARK_RETRY.formatted(table);
        this.markFailed = TaskSql.MARK_FAILED.formatted(table);
        this.markParked = TaskSql.MARK_PARKED.formatted(table);
        this.selectExpired = TaskSql.SELECT_EXPIRED_LEASES.formatted(table);
    }

    /** See {@link TaskStore#markStarted}. */
    int started(Collection<ClaimId> started, long now) {
        int marked = 0;
        for (List<ClaimId> part : partition(started)) {
            marked += jdbc.update(TaskSql.forClaims(TaskSql.MARK_STARTED, table, part.size()), claimArgs(part, now));
        }
        return marked;
    }

    /**
     * See {@link TaskStore#finish}. Each statement is a compare-and-set of its own claims, so no transaction spans
     * them: the common case, a batch of successes, is one autocommitted {@code UPDATE}.
     */
    void finished(List<Completion> completions, long now) {
        List<ClaimId> succeeded = new ArrayList<>();
        List<Object[]> retries = new ArrayList<>();
        List<Object[]> failures = new ArrayList<>();
        List<Object[]> parked = new ArrayList<>();
        for (Completion completion : completions) {
            if (completion instanceof Completion.Succeeded s) {
                succeeded.add(s.claimId());
            }
            else if (completion instanceof Completion.Retry r) {
                String error = TaskTable.fitError(r.error());
                retries.add(new Object[] { r.status().name(), r.dueAt(), r.attempts(), error, now,
                        ErrorHistory.entry(r.attempts(), now, error), r.id(), r.claim() });
            }
            else if (completion instanceof Completion.Failed f) {
                String error = TaskTable.fitError(f.error());
                failures.add(new Object[] { f.attempts(), error, now, ErrorHistory.entry(f.attempts(), now, error),
                        f.id(), f.claim() });
            }
            else if (completion instanceof Completion.Parked p) {
                String error = TaskTable.fitError(p.error());
                parked.add(new Object[] { p.attempts(), error, now, ErrorHistory.entry(p.attempts(), now, error),
                        p.id(), p.claim() });
            }
        }
        for (List<ClaimId> part : partition(succeeded)) {
            jdbc.update(TaskSql.forClaims(TaskSql.MARK_SUCCEEDED, table, part.size()), claimArgs(part, now, now));
        }
        if (!retries.isEmpty()) {
            jdbc.batchUpdate(markRetry, retries);
        }
        if (!failures.isEmpty()) {
            jdbc.batchUpdate(markFailed, failures);
        }
        if (!parked.isEmpty()) {
            jdbc.batchUpdate(markParked, parked);
        }
    }

    /** See {@link TaskStore#extendLeases}. */
    Set<ClaimId> renewed(Collection<ClaimId> held, long leaseUntil) {
        Set<ClaimId> renewed = new HashSet<>();
        for (List<ClaimId> part : partition(held)) {
            int matched = jdbc.update(TaskSql.forClaims(TaskSql.EXTEND_LEASES, table, part.size()),
                    claimArgs(part, leaseUntil));
            if (matched == part.size()) {
                renewed.addAll(part);
            }
            else {
                // some of these claims are gone (finished, or taken by another instance): find which are left
                Set<ClaimId> current = new HashSet<>(jdbc.query(
                        TaskSql.forIds(TaskSql.SELECT_CLAIMS, table, part.size()), TaskRows.CLAIM_ID,
                        part.stream().map(ClaimId::id).toArray()));
                part.stream().filter(current::contains).forEach(renewed::add);
            }
        }
        return renewed;
    }

    /** See {@link TaskStore#release}. */
    void released(Map<ClaimId, TaskStatus> statusByClaim, long now) {
        Map<TaskStatus, List<ClaimId>> byStatus = new HashMap<>();
        statusByClaim.forEach((claim, status) -> byStatus.computeIfAbsent(status, s -> new ArrayList<>()).add(claim));
        byStatus.forEach((status, claimIds) -> {
            for (List<ClaimId> part : partition(claimIds)) {
                jdbc.update(TaskSql.forClaims(TaskSql.RELEASE, table, part.size()),
                        claimArgs(part, status.name(), now));
            }
        });
    }

    /** See {@link TaskStore#recoverExpiredLeases}. */
    List<Completion> expired(long now, int limit, Function<ExpiredLease, Completion> decision) {
        return tx.execute(status -> {
            List<ExpiredLease> expired = jdbc.query(selectExpired, TaskRows.EXPIRED_LEASE, now, limit);
            List<Completion> decided = new ArrayList<>(expired.size());
            for (ExpiredLease lease : expired) {
                decided.add(decision.apply(lease));
            }
            // the rows are locked by this transaction, and each write matches the expired claim
            finished(decided, now);
            return decided;
        });
    }

    /** {@code leading} values, then the ids of {@code claims}, then their (id, claim) pairs. */
    static Object[] claimArgs(List<ClaimId> claims, Object... leading) {
        Object[] args = new Object[leading.length + claims.size() * 3];
        System.arraycopy(leading, 0, args, 0, leading.length);
        int p = leading.length;
        for (ClaimId claim : claims) {
            args[p++] = claim.id();
        }
        for (ClaimId claim : claims) {
            args[p++] = claim.id();
            args[p++] = claim.claim();
        }
        return args;
    }

    private static <T> List<List<T>> partition(Collection<T> ids) {
        List<List<T>> parts = new ArrayList<>();
        List<T> current = new ArrayList<>();
        for (T id : ids) {
            current.add(id);
            if (current.size() == MAX_ROWS_PER_STATEMENT) {
                parts.add(current);
                current = new ArrayList<>();
            }
        }
        if (!current.isEmpty()) {
            parts.add(current);
        }
        return parts;
    }
}
