package io.github.delayqueue.engine;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer loop, on a thread of its own: wait for a free worker slot, claim that many due tasks from the
 * {@link TaskSource}, hand them to the {@link WorkerPool}; when nothing is due, sleep on the {@link WakeSignal}
 * until the source's next time or an earlier announced due time. A failing database or index is logged, backed off
 * and retried; the loop never dies of it.
 */
public final class Dispatcher {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final TaskSource source;

    private final WorkerPool pool;

    private final WakeSignal wake;

    private final QueueClock clock;

    private final int batchSize;

    private final Throttle throttle = new Throttle(log, "Claiming due tasks");

    private volatile boolean running;

    private @Nullable Thread thread;

    public Dispatcher(TaskSource source, WorkerPool pool, WakeSignal wake, QueueClock clock, int batchSize) {
        this.source = source;
        this.pool = pool;
        this.wake = wake;
        this.clock = clock;
        this.batchSize = batchSize;
    }

    void start() {
        running = true;
        Thread t = new Thread(this::loop, "delay-dispatcher");
        t.setDaemon(true);
        t.start();
        thread = t;
    }

    private void loop() {
        while (running) {
            try {
                int free = pool.awaitFree(250);
                if (free == 0 || !running) {
                    continue;
                }
                long now = clock.now();
                Fetch fetch;
                try {
                    fetch = source.fetch(now, Math.min(free, batchSize));
                    throttle.succeeded();
                }
                catch (RuntimeException ex) {
                    throttle.failed(ex);
                    wake.awaitUntil(clock.now() + throttle.backoffMillis());
                    continue;
                }
                if (!fetch.tasks().isEmpty()) {
                    pool.submit(fetch.tasks());
                }
                else {
                    wake.awaitUntil(fetch.nextAt());
                }
            }
            catch (InterruptedException ex) {
                if (!running) {
                    return;
                }
            }
            catch (RuntimeException | Error ex) {
                log.error("The dispatcher loop hit an unexpected failure; it goes on", ex);
            }
        }
    }

    /** Stops claiming and waits for the loop to finish the claim it is in. */
    void stop() throws InterruptedException {
        running = false;
        wake.wakeNow();
        Thread t = thread;
        if (t != null) {
            t.join(30_000);
        }
    }

    /** Stops the loop at once: what a crash does. For fault tests. */
    void halt() {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }
}
