package io.github.delayqueue.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

import io.github.delayqueue.store.LibrarySql;

/**
 * The library's plain insert of new tasks, done by hand: the library's own statement and id read-back
 * ({@link LibrarySql.PlainInsert}), bound with the benchmark's rows, so a raw loop sends the server exactly what a
 * {@code schedule()} makes it do.
 */
final class RawInsert {

    private final LibrarySql.PlainInsert plain;

    private RawInsert(LibrarySql.PlainInsert plain) {
        this.plain = plain;
    }

    /** Finds out, as the library does once, how this server gives the ids back. */
    static RawInsert on(Connection connection, String table) {
        return new RawInsert(LibrarySql.PlainInsert.on(connection, table));
    }

    /**
     * Inserts {@code rows} rows of the benchmark's type, due at {@code dueAt} (epoch ms) in {@code status}, payloads
     * {@code firstPayload} onwards; returns their ids. Commits only if the connection is in autocommit.
     */
    List<Long> insert(Connection connection, int rows, int firstPayload, long dueAt, String status)
            throws SQLException {
        try (PreparedStatement ps = plain.prepare(connection, rows)) {
            int p = 1;
            long now = System.currentTimeMillis();
            for (int i = 0; i < rows; i++) {
                ps.setString(p++, BenchApp.TYPE);
                ps.setString(p++, null);
                ps.setString(p++, Integer.toString(firstPayload + i));
                ps.setLong(p++, dueAt);
                ps.setString(p++, status);
                ps.setNull(p++, Types.INTEGER);
                ps.setLong(p++, now);
                ps.setLong(p++, now);
            }
            return plain.execute(connection, ps, rows);
        }
    }
}
