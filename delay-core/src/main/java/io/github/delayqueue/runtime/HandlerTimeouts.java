package io.github.delayqueue.runtime;

import java.time.Duration;

import io.github.delayqueue.handler.HandlerRegistry;
import io.github.delayqueue.handler.TaskHandler;
import io.github.delayqueue.runtime.HeldTasks.Held;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Holds handlers to their timeout ({@code @DelayedHandler(timeout)}, else {@code delay.worker.handler-timeout}): a
 * handler that runs over it is interrupted, and its attempt counts as failed ({@link TaskRunner} writes it when the
 * handler returns). A handler that has not returned {@link #STOP_GRACE} after its interrupt ignores it: its failure is
 * written now, without it, so the task follows its retry policy and its lease is no longer renewed; it is reported
 * (a WARN line naming the task, its type and the thread, and {@link TaskEvents#timeoutIgnored}), and its thread, with
 * the pool's slot and the type's, stays taken until the handler returns, when what it returns is dropped: the pool
 * never has more handlers running than it has threads.
 * <p>
 * The check is a timer on the engine's scheduler that never waits on the database or Redis (the failure goes to the
 * result writer's queue): a round runs at the earliest deadline of the handlers it watches, at least every
 * {@link #IDLE}, and goes on while the engine drains, until the last handler has ended.
 */
final class HandlerTimeouts {

    /**
     * How long a handler has to return after its timeout's interrupt before it counts as ignoring it. A handler that
     * checks its interrupt, or waits in an interruptible call, stops within milliseconds; one blocked in a socket read
     * (a JDBC statement, most HTTP clients) does not stop before that call's own timeout. Until then its lease is
     * renewed, so its retry cannot start while it still runs; past it, the retry may, after its backoff, and the
     * handler's late writes are for the fencing token to refuse.
     */
    static final Duration STOP_GRACE = Duration.ofSeconds(1);

    /** How often the check looks while no watched handler has a nearer deadline. */
    private static final Duration IDLE = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(HandlerTimeouts.class);

    private final HandlerRegistry registry;

    private final @Nullable Duration defaultTimeout;

    private final HeldTasks held;

    private final TaskRunner runner;

    private final ResultWriter resultWriter;

    private final long graceNanos;

    private final PeriodicJob rounds;

    HandlerTimeouts(HandlerRegistry registry, @Nullable Duration defaultTimeout, HeldTasks held, TaskRunner runner,
            ResultWriter resultWriter, TaskScheduler timer) {
        this(registry, defaultTimeout, held, runner, resultWriter, timer, STOP_GRACE);
    }

    /** With another grace after the interrupt, for tests. */
    HandlerTimeouts(HandlerRegistry registry, @Nullable Duration defaultTimeout, HeldTasks held, TaskRunner runner,
            ResultWriter resultWriter, TaskScheduler timer, Duration grace) {
        this.registry = registry;
        this.defaultTimeout = defaultTimeout;
        this.held = held;
        this.runner = runner;
        this.resultWriter = resultWriter;
        this.graceNanos = grace.toNanos();
        this.rounds = PeriodicJob.timer(timer, "handler timeouts", IDLE, this::check);
    }

    void start() {
        rounds.start();
    }

    void stop() {
        rounds.stop();
    }

    /** The timeout of this type's handler: its own, else the queue-wide default; {@code null} for none. */
    @Nullable Duration timeoutOf(String type) {
        TaskHandler handler = registry.find(type);
        Duration own = handler == null ? null : handler.settings().timeout();
        return own != null ? own : defaultTimeout;
    }

    /** The handler of {@code entry} starts now ({@code startedNanos}, {@link System#nanoTime}): watch its timeout. */
    void started(Held entry, long startedNanos) {
        Duration timeout = timeoutOf(entry.task.type());
        if (timeout == null) {
            return;
        }
        long nanos = saturatedNanos(timeout);
        entry.watchTimeout(timeout, startedNanos + nanos);
        rounds.runWithin(nanos);
    }

    /** One round: interrupts handlers past their timeout, writes the failure of those past their grace too. */
    void check() {
        long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        for (Held entry : held.watched()) {
            long since = entry.runningSince();
            if (since == 0) {
                continue; // returned meanwhile
            }
            if (entry.overran(now, graceNanos)) {
                log.debug("Interrupted the handler of task {} (type '{}'): it ran over its timeout of {}",
                        entry.task.id(), entry.task.type(), entry.timeout());
            }
            else {
                Thread thread = entry.ignoredInterrupt(now);
                if (thread != null) {
                    writeFailure(entry, thread, now - since);
                    continue;
                }
            }
            if (entry.timeoutWatched()) {
                next = Math.min(next, entry.deadline() - now);
            }
        }
        if (next != Long.MAX_VALUE) {
            rounds.runWithin(Math.max(0, next));
        }
    }

    private void writeFailure(Held entry, Thread thread, long ranNanos) {
        log.warn("The handler of task {} (type '{}') ran over its timeout of {} and ignores its interrupt: thread {} "
                + "still runs it {} ms later. Its attempt is written as failed now, the thread runs no other task "
                + "until the handler returns, and what it returns then is dropped; make the handler stop when "
                + "interrupted", entry.task.id(), entry.task.type(), entry.timeout(), thread.getName(),
                graceNanos / 1_000_000);
        resultWriter.submit(runner.ignoredInterrupt(entry.task, entry.timeout(), Duration.ofNanos(graceNanos),
                thread.getName(), ranNanos));
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) { // longer than 292 years: never in practice
            return Long.MAX_VALUE / 4;
        }
    }
}
