package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Deletes finished rows past their retention ({@link TaskStore#purge}). On a connection of its own, under the purge
 * lock, in READ COMMITTED and autocommit: a batch's ids are read from the {@code (status, updated_at)} index, then
 * deleted by id, so each statement locks only the rows it deletes, never a gap a cancel or a completion would insert
 * into, and commits them at once.
 */
final class TaskPurge {

    /** Ids named in one {@code DELETE}: a statement far below any packet or placeholder limit. */
    private static final int MAX_IDS_PER_DELETE = 1_000;

    private final JdbcTemplate jdbc;

    private final String table;

    private final String candidates;

    /** @param table the quoted table name */
    TaskPurge(JdbcTemplate jdbc, String table) {
        this.jdbc = jdbc;
        this.table = table;
        this.candidates = TaskSql.PURGE_CANDIDATES.formatted(table);
    }

    /** See {@link TaskStore#purge}. */
    long purge(Map<TaskStatus, Long> changedBefore, int batchSize, long budgetMillis) {
        Long deleted = jdbc.execute((Connection connection) -> {
            String lock = NamedLock.name("delay_purge", catalog(connection), table);
            if (!NamedLock.acquire(connection, lock, 0)) {
                return -1L;
            }
            int isolation = connection.getTransactionIsolation();
            long total = 0;
            long deadline = System.nanoTime() + budgetMillis * 1_000_000;
            try {
                connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                try (PreparedStatement select = connection.prepareStatement(candidates)) {
                    for (Map.Entry<TaskStatus, Long> cutoff : changedBefore.entrySet()) {
                        List<Long> ids;
                        do {
                            ids = candidates(select, cutoff.getKey(), cutoff.getValue(), batchSize);
                            total += delete(connection, ids, cutoff.getKey(), cutoff.getValue());
                        }
                        while (ids.size() == batchSize && System.nanoTime() < deadline);
                    }
                }
            }
            finally {
                connection.setTransactionIsolation(isolation);
                NamedLock.release(connection, lock);
            }
            return total;
        });
        return deleted == null ? 0 : deleted;
    }

    private static List<Long> candidates(PreparedStatement select, TaskStatus status, long before, int limit)
            throws SQLException {
        select.setString(1, status.name());
        select.setLong(2, before);
        select.setInt(3, limit);
        List<Long> ids = new ArrayList<>(limit);
        try (ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
        }
        return ids;
    }

    /** Deletes in statements of at most {@link #MAX_IDS_PER_DELETE} ids, whatever the batch size. */
    private int delete(Connection connection, List<Long> ids, TaskStatus status, long before) throws SQLException {
        int deleted = 0;
        for (int from = 0; from < ids.size(); from += MAX_IDS_PER_DELETE) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + MAX_IDS_PER_DELETE));
            String sql = TaskSql.forIds(TaskSql.PURGE, table, chunk.size());
            try (PreparedStatement delete = connection.prepareStatement(sql)) {
                int i = 1;
                for (long id : chunk) {
                    delete.setLong(i++, id);
                }
                delete.setString(i++, status.name());
                delete.setLong(i, before);
                deleted += delete.executeUpdate();
            }
        }
        return deleted;
    }

    private static String catalog(Connection connection) throws SQLException {
        String catalog = connection.getCatalog();
        return catalog == null ? "" : catalog;
    }
}
