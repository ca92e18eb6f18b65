package io.github.delayqueue.engine;

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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Writes what happens to claimed tasks back to the database in batches, in a loop on a thread of the engine's
 * scheduler: that a handler started (so the attempt counts), how it ended, and claims the pool hands back unstarted,
 * so a worker is free for the next task as soon as its handler returns and the pool's timer never waits on the
 * database. A start and an end
 * that fall in the same batch are one write. A failed write is retried (the tasks stay held and their leases
 * renewed) until it succeeds or the engine stops; then retries that re-enter the index are indexed.
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

    private final @Nullable Indexer indexer;

    private final WakeSignal wake;

    private final Tiers tiers;

    private final FailureStreak failures = new FailureStreak(log, "Writing task results");

    private Consumer<List<ClaimId>> written = claims -> {
    };

    private volatile boolean stopping;

    private volatile long stopDeadline = Long.MAX_VALUE;

    /** The loop, while it runs on a thread of the engine's scheduler. */
    private final LoopThread thread = new LoopThread();

    ResultWriter(TaskStore store, QueueClock clock, @Nullable Indexer indexer, WakeSignal wake, Tiers tiers) {
        this.store = store;
        this.tiers = tiers;
        this.clock = clock;
        this.indexer = indexer;
        this.wake = wake;
    }

    /** Called with the claims of every batch of completions once it is written. */
    void onWritten(Consumer<List<ClaimId>> written) {
        this.written = written;
    }

    /** The handler of this claim starts now. */
    void started(ClaimId claim) {
        queue.add(claim);
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

    void start(TaskScheduler scheduler) {
        thread.start(scheduler, this::loop);
    }

    private void loop() {
        List<Object> batch = new ArrayList<>();
        while (true) {
            try {
                Object first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (stopping) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                lingerForMore(batch);
                write(batch);
                batch.clear();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
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
                    HandBack.release(store, tiers, indexer, handedBack, now);
                    handedBack.clear();
                }
                failures.succeeded();
                break;
            }
            catch (RuntimeException ex) {
                failures.failed(ex);
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
        if (indexer != null) {
            indexer.add(requeued);
        }
        if (earliest != Long.MAX_VALUE) {
            wake.dueAt(earliest);
        }
    }

    /** Writes what is queued, trying for up to {@code timeoutMillis}, then stops the thread. */
    void stop(long timeoutMillis) throws InterruptedException {
        stopDeadline = System.currentTimeMillis() + timeoutMillis;
        stopping = true;
        thread.join(Math.max(1, timeoutMillis + 1000));
    }

    /** Stops at once, dropping unwritten results: what a crash does. For fault tests. */
    void halt() {
        queue.clear();
        stopping = true;
        thread.interrupt();
    }
}
