package io.github.delayqueue.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimId;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Writes what happens to claimed tasks back to the database in batches, in a loop on a thread of the engine's
 * scheduler: that a handler started (so the attempt counts), how it ended, and claims the pool hands back unstarted,
 * so a worker is free for the next task as soon as its handler returns and the pool's timer never waits on the
 * database. A start and an end
 * that fall in the same batch are one write. A failed write is retried (the tasks stay held and their leases
 * renewed) until it succeeds or the engine stops, at least every half second so results are written within about a
 * second of the database's return; then retries that re-enter the index are indexed, on another thread
 * ({@link IndexWrites}): the writer waits on the database alone. The loop survives whatever it hits, an
 * {@link Error} included, and can be started again after a stop (a context stopped and started, a checkpoint
 * restored).
 */
final class ResultWriter {

    private static final Logger log = LoggerFactory.getLogger(ResultWriter.class);

    private static final int MAX_BATCH = 1000;

    private static final long LINGER_NANOS = 2_000_000;

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

    private final FailureStreak failures = new FailureStreak(log, "Writing task results");

    /** Backs off a loop that keeps failing in an unexpected way, so it cannot turn into a hot logging loop. */
    private final FailureStreak unexpected = new FailureStreak(log, "The result writer loop");

    private final Liveness liveness = new Liveness("result writer", Duration.ofSeconds(1));

    private final TaskEvents events;

    private Consumer<List<ClaimId>> written = claims -> {
    };

    /** Set by {@link #stop}: the loop ends once the queue is empty, or at the stop deadline. Guarded by this. */
    private boolean stopping;

    private volatile long stopDeadline = Long.MAX_VALUE;

    /** Whether a loop runs (or is about to): one at a time, across stops and starts. Guarded by this. */
    private boolean looping;

    /** The loop, while it runs on a thread of the engine's scheduler. */
    private volatile LoopThread thread = new LoopThread();

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
    }

    /**
     * Writes at once, on the calling thread, that the handler of this claim starts now: for a task an earlier claim of
     * which never recorded its start, which may have killed its instance before the batched mark was written. A task
     * that kills every instance it starts on must use up its attempts. {@code false} when it could not be written (the
     * database did not answer, or the claim is no longer held): the handler must not start.
     */
    boolean startNow(ClaimId claim) {
        try {
            return store.markStarted(List.of(claim), clock.now()) == 1;
        }
        catch (RuntimeException ex) {
            failures.failed(ex);
            return false;
        }
    }

    void submit(Completion completion) {
        queue.add(completion);
    }

    /** Hands these claims back, unstarted and uncounted, for any instance to take. */
    void handBack(List<ClaimedTask> unstarted) {
        queue.add(new HandBackItem(List.copyOf(unstarted)));
    }

    private record HandBackItem(List<ClaimedTask> tasks) {
    }

    /**
     * Starts the loop, or keeps the one still finishing a stop's writes going: after a stop, a start works like the
     * first one.
     */
    synchronized void start(TaskScheduler scheduler) {
        stopping = false;
        stopDeadline = Long.MAX_VALUE;
        liveness.alive();
        if (!looping) {
            looping = true;
            LoopThread loop = new LoopThread();
            thread = loop;
            loop.start(scheduler, this::loop);
        }
    }

    /** Whether the loop should end now: stopped with nothing left to write. */
    private synchronized boolean ended() {
        if (stopping && queue.isEmpty()) {
            looping = false;
            return true;
        }
        return false;
    }

    private void loop() {
        List<Object> batch = new ArrayList<>();
        while (true) {
            try {
                Object first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    liveness.alive();
                    if (ended()) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                lingerForMore(batch);
                write(batch);
                batch.clear();
                liveness.alive();
                unexpected.succeeded();
            }
            catch (InterruptedException ex) {
                synchronized (this) {
                    looping = false;
                }
                Thread.currentThread().interrupt();
                return;
            }
            catch (Throwable ex) { // an Error must not end the loop: starts and results would never be written again
                unexpected.failed(ex);
                events.workFailed(liveness.name());
                log.error("The result writer hit an unexpected failure; it goes on", ex);
                queueAgain(batch);
                batch.clear();
                if (!pause(unexpected.backoffMillis())) {
                    return;
                }
            }
        }
    }

    /** Puts back a batch whose write failed unexpectedly, for the next try. */
    private void queueAgain(List<Object> batch) {
        List<Object> again = new ArrayList<>(batch);
        queue.drainTo(again);
        queue.addAll(again);
    }

    /** Sleeps; {@code false} when interrupted, and the loop must end. */
    private boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        }
        catch (InterruptedException ex) {
            synchronized (this) {
                looping = false;
            }
            Thread.currentThread().interrupt();
            return false;
        }
    }

    Liveness liveness() {
        return liveness;
    }

    /** Each write is a commit; waiting a moment while results keep coming makes fewer, fuller ones. */
    private void lingerForMore(List<Object> batch) throws InterruptedException {
        long until = System.nanoTime() + LINGER_NANOS;
        while (batch.size() < MAX_BATCH / 2) {
            long remaining = until - System.nanoTime();
            Object next = remaining > 0 ? queue.poll(remaining, TimeUnit.NANOSECONDS) : null;
            if (next == null) {
                return;
            }
            batch.add(next);
            queue.drainTo(batch, MAX_BATCH - batch.size());
        }
    }

    private void write(List<Object> items) throws InterruptedException {
        List<Completion> batch = new ArrayList<>();
        Set<ClaimId> ended = new HashSet<>();
        for (Object item : items) {
            if (item instanceof Completion completion) {
                batch.add(completion);
                ended.add(completion.claimId());
            }
        }
        List<ClaimId> started = new ArrayList<>();
        List<ClaimedTask> handedBack = new ArrayList<>();
        for (Object item : items) {
            if (item instanceof ClaimId claim && !ended.contains(claim)) {
                started.add(claim); // a completion in the same batch counts its attempt itself
            }
            else if (item instanceof HandBackItem handBack) {
                handedBack.addAll(handBack.tasks());
            }
        }
        while (true) {
            try {
                long now = clock.now();
                if (!started.isEmpty()) {
                    store.markStarted(started, now);
                    started.clear();
                }
                if (!batch.isEmpty()) {
                    store.finish(batch, now);
                }
                if (!handedBack.isEmpty()) {
                    HandBack.release(store, tiers, index, handedBack, now);
                    handedBack.clear();
                }
                failures.succeeded();
                break;
            }
            catch (RuntimeException ex) {
                failures.failed(ex);
                events.workFailed(liveness.name());
                if (System.currentTimeMillis() >= stopDeadline) {
                    log.error("Gave up writing the results of {} task(s) at shutdown; they stay RUNNING until their "
                            + "lease ends and then run again", batch.size());
                    return;
                }
                Thread.sleep(failures.backoffMillis());
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        List<ClaimId> claims = new ArrayList<>(batch.size());
        List<DueTask> requeued = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (Completion completion : batch) {
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

    /** Writes what is queued, trying for up to {@code timeoutMillis}, then stops the thread. */
    void stop(long timeoutMillis) throws InterruptedException {
        LoopThread loop;
        synchronized (this) {
            stopDeadline = System.currentTimeMillis() + timeoutMillis;
            stopping = true;
            loop = thread;
        }
        loop.join(Math.max(1, timeoutMillis + 1000));
    }

    /** Stops at once, dropping unwritten results: what a crash does. For fault tests. */
    void halt() {
        LoopThread loop;
        synchronized (this) {
            queue.clear();
            stopping = true;
            loop = thread;
        }
        loop.interrupt();
    }
}
