package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.api.DelayQueue;
import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.engine.QueueClock;

/**
 * enqueue: n tasks with one {@code scheduleAll}, then n single {@code schedule()} calls from
 * {@code --enqueue-threads} threads (no transaction), all due 30 minutes ahead, so nothing runs.
 */
final class EnqueueWorkload implements Workload {

    @Override
    public boolean runsTasks() {
        return false;
    }

    @Override
    public void schedule(Run run, Map<String, Object> result) throws InterruptedException {
        Plan plan = run.plan;
        DelayQueue queue = run.instances().queue();
        QueueClock clock = run.instances().clock();
        int enqueueThreads = run.options.enqueueThreads;
        plan.place(Recorder.wallMicros());
        int half = plan.size() / 2;
        List<TaskRequest> batch = plan.requests(0, half, clock);
        long start = System.nanoTime();
        queue.scheduleAll(batch);
        long end = System.nanoTime();
        result.put("schedule_all_per_s", Stats.round(half / Ceiling.seconds(end - start)));

        List<TaskRequest> singles = plan.requests(half, plan.size(), clock);
        AtomicInteger next = new AtomicInteger();
        long[] latencyNanos = new long[singles.size()];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < enqueueThreads; t++) {
            threads.add(new Thread(() -> {
                int k;
                while ((k = next.getAndIncrement()) < singles.size() && failure.get() == null) {
                    long s = System.nanoTime();
                    try {
                        queue.schedule(singles.get(k));
                    }
                    catch (RuntimeException ex) {
                        failure.compareAndSet(null, ex);
                    }
                    latencyNanos[k] = System.nanoTime() - s;
                }
            }, "bench-schedule-" + t));
        }
        long singleStart = System.nanoTime();
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        long singleEnd = System.nanoTime();
        if (failure.get() != null) {
            throw new IllegalStateException("schedule() failed: " + failure.get(), failure.get());
        }
        double[] ms = new double[latencyNanos.length];
        for (int k = 0; k < ms.length; k++) {
            ms[k] = latencyNanos[k] / 1e6;
        }
        double[] sorted = Stats.sorted(ms);
        result.put("enqueue_threads", enqueueThreads);
        result.put("single_per_s", Stats.round(singles.size() / Ceiling.seconds(singleEnd - singleStart)));
        result.put("single_call_p50_ms", Stats.round(Stats.percentile(sorted, 0.50)));
        result.put("single_call_p99_ms", Stats.round(Stats.percentile(sorted, 0.99)));
        result.put("single_call_max_ms", Stats.round(Stats.percentile(sorted, 1.0)));
    }
}
