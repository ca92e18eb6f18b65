package io.github.delayqueue.runtime;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where the consumer loop sleeps until the earliest due time it knows of. Producers in this JVM and wake-ups from
 * other instances lower that time; a wake-up is a hint, so a lost one costs no more than the loop's own cap.
 */
final class WakeSignal {

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition changed = lock.newCondition();

    private final QueueClock clock;

    /** Earliest due time announced since the loop last woke; the loop sleeps no longer than this. */
    private long announced = Long.MAX_VALUE;

    public WakeSignal(QueueClock clock) {
        this.clock = clock;
    }

    /** A task falls due at {@code dueAt}: wake the loop then, if it planned to sleep longer. */
    public void dueAt(long dueAt) {
        lock.lock();
        try {
            if (dueAt < announced) {
                announced = dueAt;
                changed.signalAll();
            }
        }
        finally {
            lock.unlock();
        }
    }

    /** Wake the loop now. */
    void wakeNow() {
        dueAt(Long.MIN_VALUE);
    }

    /** Sleeps until {@code deadline} (queue time) or an earlier announced due time, whichever comes first. */
    void awaitUntil(long deadline) throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                long now = clock.now();
                long wakeAt = Math.min(deadline, announced);
                if (wakeAt <= now) {
                    if (announced <= now) {
                        announced = Long.MAX_VALUE; // consumed; a later announcement stays for the next sleep
                    }
                    return;
                }
                changed.await(wakeAt - now, TimeUnit.MILLISECONDS);
            }
        }
        finally {
            lock.unlock();
        }
    }
}
