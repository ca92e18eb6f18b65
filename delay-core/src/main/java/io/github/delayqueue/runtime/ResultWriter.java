package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Writes what happens to claimed tasks back to the database in batches, in rounds on the engine's scheduler
 * ({@link PeriodicJob}): that a handler started (so the attempt counts), how it ended, and claims the pool hands back
 * unstarted, so a worker is free for the next task as soon as its handler returns and the pool's timer never waits on
 * the database. The first result after a quiet spell calls a round a moment later, so that the results coming
 * meanwhile share its commit; half a batch calls it at once. A start and an end that fall in the same batch are one
 * write. A failed write fails the round and is tried again (the tasks stay held and their leases renewed) until it
 * succeeds or the engine stops, at least every half second so results are written within about a second of the
 * database's return; then retries that re-enter the index are indexed, on another thread ({@link IndexWrites}): the
 * writer waits on the database alone. It can be started again after a stop (a context stopped and started, a
 * checkpoint restored).
 */
final class ResultWriter {

    private static final Logger log = LoggerFactory.getLogger(ResultWriter.class);

    private static final int MAX_BATCH = 1000;

    private static final long LINGER_NANOS = 2_000_000;

    /** How long a writer with nothing to write waits for its next round, which only says that it lives. */
    private static final Duration IDLE = Duration.ofSeconds(1);

    /**
     * {@link Completion}s, {@link ClaimId}s of started handlers and {@link HandBackItem}s, in the order they
     * happened.
     */
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

    private final TaskStore store;

    private final QueueClock clock;

    private final IndexWrites index;

    private final WakeSignal wake;

    private final Tiers tiers;

    private final FailureStreak startFailures = new FailureStreak(log, "Writing a task's start before its handler");


    private final TaskEvents events;

    private Consumer<List<ClaimId>> written = claims -> {
    };

    /** Set by {@link #stop}: past it, a write that fails is given up. */
    private volatile long stopDeadline = Long.MAX_VALUE;

    /** A batch taken from the queue and not written yet: a failed write keeps it for the next round. */
    private volatile @Nullable Batch pending;

    private volatile @Nullable PeriodicJob rounds;

    ResultWriter(TaskStore store, QueueClock clock, IndexWrites index, WakeSignal wake, Tiers tiers,
            TaskEvents events) {
        this.store = store;
        this.tiers = tiers;
        this.clock = clock;
        this.index = index;
        this.wake = wake;
        this.events = events;
    }

    /** Called with the claims of every batch of completions once it is written. */
    void onWritten(Consumer<List<ClaimId>> written) {
        this.written = written;
    }

    /** The handler of this claim starts now. */
    void started(ClaimId claim) {
        queue.add(claim);
        nudge();
    }

    /**
     * Writes at once, on the calling thread, that the handler of this claim starts now: for a task an earlier claim of
     * which never recorded its start, which may have killed its instance before the batched mark was written. A task
     * that kills every instance it starts on must use up its attempts. {@code false} when it could not be written (the
     * database did not answer, or the claim is no longer held): the handler must not start.
     */
    boolean startNow(ClaimId claim) {
        try {
            boolean written = store.markStarted(List.of(claim), clock.now()) == 1;
            startFailures.succeeded();
            return written;
        }
        catch (RuntimeException ex) {
            startFailures.failed(ex);
            return false;
        }
    }

    void submit(Completion completion) {
        queue.add(completion);
        nudge();
    }

    /** Hands these claims back, unstarted and uncounted, for any instance to take. */
    void handBack(List<ClaimedTask> unstarted) {
        queue.add(new HandBackItem(List.copyOf(unstarted)));
        nudge();
    }

    private record HandBackItem(List<ClaimedTask> tasks) {
    }

    /** Starts the rounds; after a stop, a start works like the first one. */
    synchronized void start(TaskScheduler scheduler) {
        stopDeadline = Long.MAX_VALUE;
        PeriodicJob job = rounds;
        if (job == null) {
            job = new PeriodicJob(scheduler, "result writer", IDLE, events, IoLanes.Waits.DATABASE) {
                @Override
                void runOnce() {
                    round();
                }

                @Override
                Duration nextDelay() {
                    return queue.isEmpty() ? IDLE : Duration.ofNanos(lingerNanos());
                }
            };
            rounds = job;
        }
        job.start();
    }

    /** Calls the next round soon: at once for half a batch, else after the linger, for a fuller commit. */
    private void nudge() {
        PeriodicJob job = rounds;
        if (job != null) {
            job.runWithin(lingerNanos());
        }
    }

    /** Each write is a commit: waiting a moment while results keep coming makes fewer, fuller ones. */
    private long lingerNanos() {
        return queue.size() >= MAX_BATCH / 2 ? 0 : LINGER_NANOS;
    }

    /** One write: what a failed write left, or the next batch from the queue. */
    private void round() {
        Batch batch = pending;
        if (batch == null) {
            List<Object> items = new ArrayList<>();
            queue.drainTo(items, MAX_BATCH);
            batch = items.isEmpty() ? null : new Batch(items);
            pending = batch;
        }
        if (batch != null) {
            write(batch);
        }
    }

    /**
     * Writes everything queued on the calling thread, round after round, until nothing is left: how an engine driven
     * by its caller ({@link DelayQueueEngine#runDue(int)}) writes its results before it returns. A failed write throws,
     * and what it held stays queued for the next flush.
     */
    void flush() {
        while (pending != null || !queue.isEmpty()) {
            round();
        }
    }

    Liveness liveness() {
        PeriodicJob job = rounds;
        return job != null ? job.liveness() : new Liveness("result writer", IDLE);
    }

    /** One batch: starts, completions and hand-backs, each list emptied once written. */
    private static final class Batch {

        final List<Completion> completions = new ArrayList<>();

        final List<ClaimId> started = new ArrayList<>();

        final List<ClaimedTask> handedBack = new ArrayList<>();

        Batch(List<Object> items) {
            Set<ClaimId> ended = new HashSet<>();
            for (Object item : items) {
                if (item instanceof Completion completion) {
                    completions.add(completion);
                    ended.add(completion.claimId());
                }
            }
            for (Object item : items) {
                if (item instanceof ClaimId claim && !ended.contains(claim)) {
                    started.add(claim); // a completion in the same batch counts its attempt itself
                }
                else if (item instanceof HandBackItem handBack) {
                    handedBack.addAll(handBack.tasks());
                }
            }
        }
    }

    private void write(Batch batch) {
        try {
            long now = clock.now();
            if (!batch.started.isEmpty()) {
                store.markStarted(batch.started, now);
                batch.started.clear();
            }
            if (!batch.completions.isEmpty()) {
                store.finish(batch.completions, now);
            }
            if (!batch.handedBack.isEmpty()) {
                HandBack.release(store, tiers, index, batch.handedBack, now);
                batch.handedBack.clear();
            }
        }
        catch (RuntimeException ex) {
            if (System.currentTimeMillis() < stopDeadline) {
                throw ex; // the round fails: tried again after the back-off
            }
            pending = null;
            log.error("Gave up writing the results of {} task(s) at shutdown; they stay RUNNING until their "
                    + "lease ends and then run again", batch.completions.size());
            return;
        }
        pending = null; // written: what follows must not write it twice should it fail
        if (batch.completions.isEmpty()) {
            return;
        }
        List<ClaimId> claims = new ArrayList<>(batch.completions.size());
        List<DueTask> requeued = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (Completion completion : batch.completions) {
            claims.add(completion.claimId());
            if (completion instanceof Completion.Retry retry) {
                earliest = Math.min(earliest, retry.dueAt());
                if (retry.status() == TaskStatus.QUEUED) {
                    requeued.add(new DueTask(retry.id(), retry.dueAt()));
                }
            }
        }
        written.accept(claims);
        index.add(requeued);
        if (earliest != Long.MAX_VALUE) {
            wake.dueAt(earliest);
        }
    }

    /**
     * Ends the rounds and writes what is queued on the calling thread, which waits for it anyway, trying for up to
     * {@code timeoutMillis}: the scheduler may be shutting down with the context.
     */
    void stop(long timeoutMillis) throws InterruptedException {
        PeriodicJob job;
        synchronized (this) {
            stopDeadline = System.currentTimeMillis() + timeoutMillis;
            job = rounds;
        }
        if (job != null) {
            job.stop();
            if (!job.awaitRound(timeoutMillis + 1000)) {
                return; // a round hung on the database: the writes are its own
            }
        }
        long backoff = 50;
        while (pending != null || !queue.isEmpty()) {
            try {
                round();
            }
            catch (RuntimeException | Error ex) {
                if (System.currentTimeMillis() >= stopDeadline) {
                    pending = null;
                    queue.clear();
                    log.error("Gave up writing task results at shutdown ({}); their tasks stay RUNNING until their "
                            + "lease ends and then run again", ex.toString());
                    return;
                }
                Thread.sleep(backoff);
                backoff = Math.min(FailureStreak.MAX_BACKOFF_MILLIS, backoff * 2);
            }
        }
    }

    /** Stops at once, dropping unwritten results: what a crash does. For fault tests. */
    void halt() {
        PeriodicJob job;
        synchronized (this) {
            queue.clear();
            pending = null;
            job = rounds;
        }
        if (job != null) {
            job.halt();
        }
    }
}
