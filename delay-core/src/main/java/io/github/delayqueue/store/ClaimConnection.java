package io.github.delayqueue.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The connection claims run on: kept out of the pool, in manual commit and READ COMMITTED, so a claim is its
 * {@code SELECT ... FOR UPDATE SKIP LOCKED}, its {@code UPDATE} and one {@code COMMIT}, without switching autocommit
 * and isolation back and forth around every claim (four round trips of eight, measured). It goes back to the pool
 * after a minute, so the pool's own lifetime rules still apply, and at once after any failure. Its reads time out
 * after the lease: a claim answered later than that is of no use (its tasks are not started), and a connection whose
 * server vanished without a reset would otherwise hold the dispatcher for the operating system's TCP timeout.
 */
final class ClaimConnection {

    /** How many times a claim chosen as a deadlock's victim is tried in all. */
    static final int DEADLOCK_TRIES = 3;

    private static final long KEEP_MILLIS = 60_000;

    private static final Logger log = LoggerFactory.getLogger(ClaimConnection.class);

    private final DataSource dataSource;

    private final int timeoutMillis;

    private final JdbcTemplate translator;

    private @Nullable Connection connection;

    private @Nullable JdbcTemplate template;

    private long takenAt;

    ClaimConnection(DataSource dataSource, Duration timeout) {
        this.dataSource = dataSource;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        this.translator = new JdbcTemplate(dataSource);
    }

    /**
     * Runs {@code work} as one transaction on the claim connection. A transaction the database rolled back to break a
     * deadlock (a claim's new index entries waiting for a result write's gap lock while the write waits for a row the
     * claim holds: seen twice in 10 minutes at 5,000 tasks/s) is run again at once, up to {@value #DEADLOCK_TRIES}
     * times: nothing of it was written, and waiting out the dispatcher's failure back-off would make every task due
     * meanwhile late.
     */
    synchronized <T> T inTransaction(Function<JdbcTemplate, T> work) {
        for (int attempt = 1;; attempt++) {
            try {
                return once(work);
            }
            catch (DataAccessException ex) {
                if (attempt >= DEADLOCK_TRIES || !Deadlocks.victim(ex)) {
                    throw ex;
                }
                log.debug("A claim was rolled back to break a deadlock; claiming again (attempt {})", attempt + 1);
            }
        }
    }

    private <T> T once(Function<JdbcTemplate, T> work) {
        try {
            JdbcTemplate template = template();
            T result = work.apply(template);
            Objects.requireNonNull(connection, "the claim connection").commit();
            if (System.currentTimeMillis() - takenAt > KEEP_MILLIS) {
                giveBack();
            }
            return result;
        }
        catch (SQLException ex) {
            discard();
            throw translator.getExceptionTranslator().translate("claim", null, ex);
        }
        catch (RuntimeException ex) {
            discard();
            throw ex;
        }
    }

    private JdbcTemplate template() throws SQLException {
        if (template == null) {
            Connection taken = dataSource.getConnection();
            try {
                taken.setAutoCommit(false);
                taken.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                taken.setNetworkTimeout(Runnable::run, timeoutMillis); // the pool resets it when it is given back
            }
            catch (SQLException ex) {
                taken.close();
                throw ex;
            }
            connection = taken;
            template = new JdbcTemplate(new SingleConnectionDataSource(taken, true));
            takenAt = System.currentTimeMillis();
        }
        return template;
    }

    private void discard() {
        if (connection != null) {
            try {
                connection.rollback();
            }
            catch (SQLException ex) {
                // broken already; the pool drops it
            }
        }
        giveBack();
    }

    /** Returns the connection to the pool, which restores its autocommit and isolation. */
    synchronized void giveBack() {
        Connection taken = connection;
        connection = null;
        template = null;
        if (taken != null) {
            try {
                taken.close();
            }
            catch (SQLException ex) {
                // the pool drops a connection it cannot reset
            }
        }
    }
}
