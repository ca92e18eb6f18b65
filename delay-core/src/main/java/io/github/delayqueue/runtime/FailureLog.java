package io.github.delayqueue.runtime;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.github.delayqueue.store.ClaimedTask;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * The log of failed attempts, written for {@link TaskRunner}: one line per failed attempt, WARN while the task will
 * be tried again, ERROR when it is dead-lettered, with the stack trace of the handler's exception on that line only.
 * Each line names the task (id, type, key) and the attempt, so an operator finds it without reading the table.
 * <p>
 * The lines are bounded, per type and level: {@value #LINES_PER_WINDOW} every {@value #WINDOW_MILLIS} ms, then one
 * line saying that the type's further failures are left out, and the type's next logged line says how many were.
 * Why: a type that fails on every run (its downstream is down, a bad release) fails as fast as the workers take its
 * tasks, thousands of times a second; a line each, and a stack trace each on the dead letters, would make the
 * appender (synchronous by default, so the worker threads wait on it) the bottleneck of the instance and fill the disk
 * while telling nothing new. Nothing is lost to the operator: {@code delay.task.failures} and
 * {@code delay.tasks.completed} count every attempt, and every dead letter keeps its {@code last_error}.
 */
final class FailureLog {

    static final int LINES_PER_WINDOW = 10;

    static final long WINDOW_MILLIS = 10_000;

    /**
     * Types with budgets of their own; past this, types share one. Types come from the table, not only from this
     * instance's handlers (a type nobody serves), so their number has no other bound.
     */
    static final int MAX_TYPES = 1_000;

    private final Logger log;

    private final LongSupplier clock;

    private final Map<String, Budget> warnings = new ConcurrentHashMap<>();

    private final Map<String, Budget> errors = new ConcurrentHashMap<>();

    private final Budget otherWarnings = new Budget();

    private final Budget otherErrors = new Budget();

    /** @param clock now in epoch milliseconds, for the windows */
    FailureLog(Logger log, LongSupplier clock) {
        this.log = log;
        this.clock = clock;
    }

    /** The handler failed; the task runs again at {@code dueAt}. */
    void retried(ClaimedTask task, int maxAttempts, long dueAt, Throwable failure) {
        write(Level.WARN, task.type(), describe(task) + " failed on attempt " + task.attempt() + " of " + maxAttempts
                + "; it runs again at " + Instant.ofEpochMilli(dueAt) + ": " + TaskRunner.describe(failure), null);
    }

    /** The handler failed on the task's last attempt. */
    void deadLettered(ClaimedTask task, int maxAttempts, Throwable failure) {
        write(Level.ERROR, task.type(), describe(task) + " failed on attempt " + task.attempt() + " of " + maxAttempts
                + " and is dead-lettered (FAILED): " + TaskRunner.describe(failure)
                + "; fix the cause, then re-run it (the delayqueue endpoint)", failure);
    }

    /**
     * The task was dead-lettered before any handler ran: {@code error} says why (no handler, a payload that does not
     * bind), {@code failure} is logged with its stack trace when it is not an expected one.
     */
    void rejected(ClaimedTask task, String error, @Nullable Throwable failure) {
        write(Level.ERROR, task.type(), describe(task) + " is dead-lettered (FAILED) on attempt " + task.attempt()
                + ": " + error, failure);
    }

    /** The task's payload does not bind to its handler: parked, with {@code error} saying why and what to do. */
    void parked(ClaimedTask task, String error) {
        write(Level.ERROR, task.type(), describe(task) + " is parked (PARKED) on attempt " + task.attempt() + ": "
                + error, null);
    }

    /** The instance could not renew the lease, so the pool interrupted the handler; the attempt is not counted. */
    void interrupted(ClaimedTask task, String error) {
        write(Level.WARN, task.type(), describe(task) + " goes back, due now, its attempt not counted: " + error, null);
    }

    /** Something around the handler failed (a listener, the codec); {@code dueAt} is null when dead-lettered. */
    void failedOutsideHandler(ClaimedTask task, @Nullable Long dueAt, Throwable failure) {
        write(Level.ERROR, task.type(), describe(task) + " failed on attempt " + task.attempt()
                + " outside its handler (a TaskEvents listener or the payload codec); "
                + (dueAt == null ? "it is dead-lettered (FAILED)" : "it runs again at " + Instant.ofEpochMilli(dueAt))
                + ": " + TaskRunner.describe(failure), failure);
    }

    static String describe(ClaimedTask task) {
        return "Task " + task.id() + " of type '" + task.type() + "' ("
                + (task.key() == null ? "no key" : "key '" + task.key() + "'") + ")";
    }

    private void write(Level level, String type, String line, @Nullable Throwable failure) {
        if (!log.isEnabledForLevel(level)) {
            return;
        }
        boolean error = level == Level.ERROR;
        Budget.Turn turn = budget(error ? errors : warnings, error ? otherErrors : otherWarnings, type)
            .take(clock.getAsLong());
        if (turn.log()) {
            String skipped = turn.skipped() == 0 ? "" : " (" + turn.skipped() + " more failure line(s) of type '"
                    + type + "' at " + level + " were not logged before this one; delay.task.failures counts them)";
            log.atLevel(level).setCause(failure).log(line + skipped);
        }
        else if (turn.firstLeftOut()) {
            log.atLevel(level).log("Tasks of type '{}' fail faster than {} lines every {} ms can tell: further "
                    + "failures of the type at {} are not logged until {}; delay.task.failures counts them all",
                    type, LINES_PER_WINDOW, WINDOW_MILLIS, level, Instant.ofEpochMilli(turn.windowEnd()));
        }
    }

    private static Budget budget(Map<String, Budget> budgets, Budget shared, String type) {
        Budget budget = budgets.get(type);
        if (budget != null) {
            return budget;
        }
        return budgets.size() >= MAX_TYPES ? shared : budgets.computeIfAbsent(type, t -> new Budget());
    }

    /** The lines one type may still write at one level in the current window. */
    static final class Budget {

        private long windowStart = Long.MIN_VALUE;

        private int used;

        private boolean announced;

        private long skipped;

        /**
         * @param log whether to write the line
         * @param skipped lines left out before this one, to mention on it
         * @param firstLeftOut this is the window's first line left out, to say that lines are left out
         * @param windowEnd when the window ends, epoch milliseconds
         */
        record Turn(boolean log, long skipped, boolean firstLeftOut, long windowEnd) {
        }

        synchronized Turn take(long now) {
            // a clock that went back (a new alignment) starts a window too, so a line is never held back for long
            if (windowStart == Long.MIN_VALUE || now - windowStart >= WINDOW_MILLIS || now < windowStart) {
                windowStart = now;
                used = 0;
                announced = false;
            }
            long windowEnd = windowStart + WINDOW_MILLIS;
            if (used < LINES_PER_WINDOW) {
                used++;
                long before = skipped;
                skipped = 0;
                return new Turn(true, before, false, windowEnd);
            }
            skipped++;
            boolean first = !announced;
            announced = true;
            return new Turn(false, 0, first, windowEnd);
        }
    }
}
