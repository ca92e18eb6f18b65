package io.github.delayqueue.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;

/** Tasks run before a run's measurement, to warm the JIT and the pools; counted by their handler, not recorded. */
final class WarmUp {

    private WarmUp() {
    }

    /** The usual warm-up: {@code count} tasks due at once, most with {@code scheduleAll}, up to 200 one by one. */
    static void standard(DelayQueue queue, int count, AtomicInteger warmups) throws InterruptedException {
        if (count == 0) {
            return;
        }
        List<TaskRequest> batch = new ArrayList<>();
        int singles = Math.min(200, count / 4);
        for (int i = 0; i < count - singles; i++) {
            batch.add(TaskRequest.of(BenchApp.WARMUP_TYPE, i).dueAt(Instant.now()).build());
            if (batch.size() == 100) {
                queue.scheduleAll(batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            queue.scheduleAll(batch);
        }
        for (int i = 0; i < singles; i++) {
            queue.schedule(BenchApp.WARMUP_TYPE, i, Instant.now());
        }
        awaitRan(warmups, count);
    }

    /** Waits until {@code count} warm-up tasks ran (at most a minute), then for their results to be written. */
    static void awaitRan(AtomicInteger warmups, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (warmups.get() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        if (warmups.get() < count) {
            BenchRun.log("warm-up: only " + warmups.get() + " of " + count + " tasks ran within 60s");
        }
        Thread.sleep(500); // let the last results be written before the counters are read
    }
}
