package io.github.delayqueue.runtime;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * A loop that runs for as long as its owner runs, on a thread it borrows from the engine's {@link TaskScheduler}
 * rather than one of its own: so that every engine thread comes from one replaceable bean. It keeps that thread until
 * the loop returns, so the scheduler has a thread for it and one for each periodic job (see
 * {@code DelayQueueEngine#SCHEDULER_THREADS}); the loop wakes at the same instant as it would on a thread of its own.
 */
final class LoopThread {

    private final CountDownLatch ended = new CountDownLatch(1);

    private volatile @Nullable Thread thread;

    private volatile boolean interruptRequested;

    /** Runs {@code loop} on a scheduler thread now. */
    void start(TaskScheduler scheduler, Runnable loop) {
        scheduler.schedule(() -> run(loop), scheduler.getClock().instant());
    }

    private void run(Runnable loop) {
        thread = Thread.currentThread();
        try {
            if (!interruptRequested) {
                loop.run();
            }
        }
        finally {
            thread = null;
            Thread.interrupted(); // an interrupt meant for this loop must not reach the scheduler's next task
            ended.countDown();
        }
    }

    /** Waits up to {@code millis} for the loop to return; {@code false} if it still runs. */
    boolean join(long millis) throws InterruptedException {
        return ended.await(millis, TimeUnit.MILLISECONDS);
    }

    /** Interrupts the loop, or keeps it from starting if it has not started yet. */
    void interrupt() {
        interruptRequested = true;
        Thread running = thread;
        if (running != null) {
            running.interrupt();
        }
    }
}
