package io.github.delayqueue.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * A server-wide user lock ({@code GET_LOCK}) that lets one instance at a time do a job on one table. Its name is the
 * job plus a hash of the database and table: user locks are server-wide, and MySQL 8 refuses names over 64
 * characters (MariaDB accepts longer ones). The lock belongs to the connection that took it.
 */
final class NamedLock {

    private NamedLock() {
    }

    /** {@code job:} and 32 hex digits; at most 64 characters for a job name of up to 31. */
    static String name(String job, String database, String table) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest((database + "." + table).getBytes(StandardCharsets.UTF_8));
            return job + ":" + HexFormat.of().formatHex(digest, 0, 16);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }

    /** Takes the lock, waiting up to {@code timeoutSeconds}; {@code false} when another connection kept it. */
    static boolean acquire(Connection connection, String name, int timeoutSeconds) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT GET_LOCK(?, ?)")) {
            lock.setString(1, name);
            lock.setInt(2, timeoutSeconds);
            try (ResultSet result = lock.executeQuery()) {
                return result.next() && result.getInt(1) == 1;
            }
        }
    }

    static void release(Connection connection, String name) throws SQLException {
        try (PreparedStatement release = connection.prepareStatement("SELECT RELEASE_LOCK(?)")) {
            release.setString(1, name);
            release.execute();
        }
    }
}
