package io.github.delayqueue.bench;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.runtime.QueueClock;

/**
 * steady and mixed (and the soak's producer): one thread on instance 0 schedules each slot at its planned time, due
 * its delay after the wall clock's now, in small {@code scheduleAll} batches when it falls behind.
 */
final class PacedWorkload implements Workload {

    /** The origin is this far ahead of the call, so the first slots are not late before the loop runs. */
    static final long ORIGIN_AHEAD_MICROS = 200_000;

    @Override
    public void schedule(Run run, Map<String, Object> result) {
        long originNanos = System.nanoTime() + ORIGIN_AHEAD_MICROS * 1000;
        long originWallMicros = Recorder.wallMicros() + ORIGIN_AHEAD_MICROS;
        produce(run.plan, run.instances().queue(), run.instances().clock(), originNanos, originWallMicros,
                new AtomicLong(), result);
    }

    /**
     * Schedules slot i at {@code originNanos} + its planned offset, due its delay after {@code originWallMicros} +
     * that offset; counts what it scheduled in {@code scheduled} as it goes.
     */
    static void produce(Plan plan, DelayQueue queue, QueueClock clock, long originNanos, long originWallMicros,
            AtomicLong scheduled, Map<String, Object> result) {
        plan.place(originWallMicros);
        int calls = 0;
        long maxLagMicros = 0;
        int scheduledLate = 0;
        int i = 0;
        int n = plan.size();
        while (i < n) {
            long target = originNanos + plan.scheduleAtMicros[i] * 1000;
            long wait;
            while ((wait = target - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            long now = System.nanoTime();
            int j = i + 1;
            while (j < n && j - i < 500 && originNanos + plan.scheduleAtMicros[j] * 1000 <= now) {
                j++;
            }
            maxLagMicros = Math.max(maxLagMicros, (now - target) / 1000);
            queue.scheduleAll(plan.requests(i, j, clock));
            scheduled.addAndGet(j - i);
            calls++;
            long after = Recorder.wallMicros();
            for (int k = i; k < j; k++) {
                if (after > plan.dueWallMicros[k]) {
                    scheduledLate++;
                }
            }
            i = j;
        }
        result.put("schedule_calls", calls);
        result.put("producer_max_lag_ms", Stats.round(maxLagMicros / 1000.0));
        result.put("scheduled_after_due", scheduledLate);
    }
}
