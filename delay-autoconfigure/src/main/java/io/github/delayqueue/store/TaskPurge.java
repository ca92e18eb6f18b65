package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

import io.github.delayqueue.api.TaskStatus;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Deletes finished rows past their retention ({@link TaskStore#purge}). On a connection of its own, under the purge
 * lock, in READ COMMITTED and autocommit: each statement locks only the rows it deletes, never a gap a cancel or a
 * completion would insert into, and commits them at once.
 */
final class TaskPurge {

    private final JdbcTemplate jdbc;

    private final String table;

    private final String purge;

    /** @param table the quoted table name */
    TaskPurge(JdbcTemplate jdbc, String table) {
        this.jdbc = jdbc;
        this.table = table;
        this.purge = TaskSql.PURGE.formatted(table);
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
                try (PreparedStatement delete = connection.prepareStatement(purge)) {
                    for (Map.Entry<TaskStatus, Long> cutoff : changedBefore.entrySet()) {
                        int n;
                        do {
                            delete.setString(1, cutoff.getKey().name());
                            delete.setLong(2, cutoff.getValue());
                            delete.setInt(3, batchSize);
                            n = delete.executeUpdate();
                            total += n;
                        }
                        while (n == batchSize && System.nanoTime() < deadline);
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

    private static String catalog(Connection connection) throws SQLException {
        String catalog = connection.getCatalog();
        return catalog == null ? "" : catalog;
    }
}
