package io.github.delayqueue.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.delayqueue.api.TaskStatus;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.store.Completion;
import io.github.delayqueue.store.DueTask;
import io.github.delayqueue.store.TaskStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the results of finished tasks back to the database in batches, on a thread of its own, so a worker is
 * free for the next task as soon as its handler returns. A failed write is retried (the tasks stay held and their
 * leases renewed) until it succeeds or the engine stops; then retries that re-enter the index are indexed.
 */
public final class Completer {

    private static final Logger log = LoggerFactory.getLogger(Completer.class);

    private static final int MAX_BATCH = 1000;

    private static final long LINGER_NANOS = 2_000_000;

    private final LinkedBlockingQueue<Completion> queue = new LinkedBlockingQueue<>();

    private final TaskStore store;

    private final String owner;

    private final QueueClock clock;

    private final @Nullable Indexer indexer;

    private final WakeSignal wake;

    private final Throttle throttle = new Throttle(log, "Writing task results");

    private Consumer<List<Long>> written = ids -> {
    };

    private volatile boolean stopping;

    private volatile long stopDeadline = Long.MAX_VALUE;

    private @Nullable Thread thread;

    public Completer(TaskStore store, String owner, QueueClock clock, @Nullable Indexer indexer, WakeSignal wake) {
        this.store = store;
        this.owner = owner;
        this.clock = clock;
        this.indexer = indexer;
        this.wake = wake;
    }

    /** Called with the ids of every batch once it is written. */
    void onWritten(Consumer<List<Long>> written) {
        this.written = written;
    }

    void submit(Completion completion) {
        queue.add(completion);
    }

    void start() {
        Thread t = new Thread(this::loop, "delay-completer");
        t.setDaemon(true);
        t.start();
        thread = t;
    }

    private void loop() {
        List<Completion> batch = new ArrayList<>();
        while (true) {
            try {
                Completion first = queue.poll(100, TimeUnit.MILLISECONDS);
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
    private void lingerForMore(List<Completion> batch) throws InterruptedException {
        long until = System.nanoTime() + LINGER_NANOS;
        while (batch.size() < MAX_BATCH / 2) {
            long remaining = until - System.nanoTime();
            Completion next = remaining > 0 ? queue.poll(remaining, TimeUnit.NANOSECONDS) : null;
            if (next == null) {
                return;
            }
            batch.add(next);
            queue.drainTo(batch, MAX_BATCH - batch.size());
        }
    }

    private void write(List<Completion> batch) throws InterruptedException {
        while (true) {
            try {
                store.finish(owner, batch, clock.now());
                throttle.succeeded();
                break;
            }
            catch (RuntimeException ex) {
                throttle.failed(ex);
                if (System.currentTimeMillis() >= stopDeadline) {
                    log.error("Gave up writing the results of {} task(s) at shutdown; they stay RUNNING until their "
                            + "lease ends and then run again", batch.size());
                    return;
                }
                Thread.sleep(throttle.backoffMillis());
            }
        }
        List<Long> ids = new ArrayList<>(batch.size());
        List<DueTask> requeued = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (Completion completion : batch) {
            ids.add(completion.id());
            if (completion instanceof Completion.Retry retry) {
                earliest = Math.min(earliest, retry.dueAt());
                if (retry.status() == TaskStatus.QUEUED) {
                    requeued.add(new DueTask(retry.id(), retry.dueAt()));
                }
            }
        }
        written.accept(ids);
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
        Thread t = thread;
        if (t != null) {
            t.join(Math.max(1, timeoutMillis + 1000));
        }
    }

    /** Stops at once, dropping unwritten results: what a crash does. For fault tests. */
    void halt() {
        queue.clear();
        stopping = true;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }
}
