package io.github.delayqueue.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * N single calls made by T threads as fast as they can, each call timed on its own ({@code nanoTime} around it, kept
 * per thread and merged at the end, so the threads share nothing but the next slot's counter). Every thread opens
 * what it needs (a connection, a Redis session) before the common start, so the rate counts only the calls. Used for
 * the library's {@code schedule()} and for the raw loops it is compared with.
 */
final class Calls {

    private Calls() {
    }

    /** One thread's caller. */
    interface Caller extends AutoCloseable {

        /** The call that is timed. */
        void call(int slot) throws Exception;

        /** After the timed call, on the same thread: whatever the workload notes about it, not timed. */
        default void after(int slot) {
        }

        @Override
        default void close() throws Exception {
        }
    }

    /** Makes the caller of thread {@code thread}, before the start. */
    interface Callers {
        Caller open(int thread) throws Exception;
    }

    /** Slots 0..calls-1, taken in order by {@code threads} threads; returns when all are done or one call failed. */
    static Times run(String name, int calls, int threads, Callers callers) throws Exception {
        return run(name, calls, threads, callers, () -> {
        });
    }

    /** The same; {@code atStart} runs once every thread is ready, just before the first call. */
    static Times run(String name, int calls, int threads, Callers callers, Runnable atStart) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[][] latencies = new long[threads][];
        int[] counts = new int[threads];
        long[] lastEnd = new long[threads];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            workers.add(new Thread(() -> {
                long[] mine = new long[Math.max(16, calls / threads * 2)];
                int count = 0;
                try (Caller caller = callers.open(thread)) {
                    ready.countDown();
                    go.await();
                    int slot;
                    while (failure.get() == null && (slot = next.getAndIncrement()) < calls) {
                        long start = System.nanoTime();
                        caller.call(slot);
                        long end = System.nanoTime();
                        if (count == mine.length) {
                            mine = Arrays.copyOf(mine, count * 2);
                        }
                        mine[count++] = end - start;
                        lastEnd[thread] = end;
                        caller.after(slot);
                    }
                }
                catch (Throwable ex) {
                    failure.compareAndSet(null, ex);
                    ready.countDown(); // a thread that failed to open must not hold the others at the start
                }
                finally {
                    latencies[thread] = Arrays.copyOf(mine, count);
                    counts[thread] = count;
                }
            }, name + "-" + t));
        }
        workers.forEach(Thread::start);
        ready.await();
        atStart.run();
        long start = System.nanoTime();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException(name + " failed: " + failure.get(), failure.get());
        }
        long end = start;
        for (long e : lastEnd) {
            end = Math.max(end, e);
        }
        return new Times(start, end, merge(latencies));
    }

    /** Every thread's latencies in one sorted array. */
    static long[] merge(long[][] perThread) {
        int total = 0;
        for (long[] part : perThread) {
            total += part == null ? 0 : part.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] part : perThread) {
            if (part != null) {
                System.arraycopy(part, 0, all, at, part.length);
                at += part.length;
            }
        }
        Arrays.sort(all);
        return all;
    }

    /**
     * A finished set of calls: from the common start to the end of the last call, and every call's latency.
     *
     * @param sortedNanos each call's latency, sorted
     */
    record Times(long startNanos, long endNanos, long[] sortedNanos) {

        int calls() {
            return sortedNanos.length;
        }

        double perSecond() {
            return calls() / Ceiling.seconds(endNanos - startNanos);
        }

        double percentileMs(double p) {
            if (sortedNanos.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(p * sortedNanos.length);
            return sortedNanos[Math.min(sortedNanos.length - 1, Math.max(0, rank - 1))] / 1e6;
        }

        double meanMs() {
            if (sortedNanos.length == 0) {
                return Double.NaN;
            }
            double sum = 0;
            for (long nanos : sortedNanos) {
                sum += nanos;
            }
            return sum / sortedNanos.length / 1e6;
        }

        /** {@code rateKey}, then {@code latencyPrefix}p50_ms, p99_ms, max_ms and mean_ms. */
        void describe(String rateKey, String latencyPrefix, Map<String, Object> result) {
            result.put(rateKey, Stats.round(perSecond()));
            result.put(latencyPrefix + "p50_ms", Stats.round(percentileMs(0.50)));
            result.put(latencyPrefix + "p99_ms", Stats.round(percentileMs(0.99)));
            result.put(latencyPrefix + "max_ms", Stats.round(percentileMs(1.0)));
            result.put(latencyPrefix + "mean_ms", Stats.round(meanMs()));
        }
    }
}
