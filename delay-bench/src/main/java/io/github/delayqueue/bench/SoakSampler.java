package io.github.delayqueue.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes the soak's samples: one at the origin and one at every interval boundary after it, each followed by the
 * probes (gauges, health, endpoint) on a thread of their own, so a slow endpoint never moves a boundary. Prints a
 * line per interval as the run goes; the exact per-interval figures are made at the end ({@link Intervals}).
 */
final class SoakSampler {

    private final Run run;

    private final DatabaseCpu databaseCpu;

    private final Probes probes;

    private final AtomicLong scheduled;

    private final List<Intervals.Sample> samples = Collections.synchronizedList(new ArrayList<>());

    /** Probe results by sample index; filled as the probes finish. */
    private final List<Map<String, Object>> probeResults = Collections.synchronizedList(new ArrayList<>());

    private final ScheduledExecutorService sampling =
            Executors.newSingleThreadScheduledExecutor(daemon("bench-sample"));

    private final ExecutorService probing = Executors.newSingleThreadExecutor(daemon("bench-probe"));

    SoakSampler(Run run, DatabaseCpu databaseCpu, Probes probes, AtomicLong scheduled) {
        this.run = run;
        this.databaseCpu = databaseCpu;
        this.probes = probes;
        this.scheduled = scheduled;
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** The first sample at {@code originNanos}, then one every {@code every}. */
    void start(long originNanos, Duration every) {
        long delay = Math.max(0, originNanos - System.nanoTime());
        sampling.scheduleAtFixedRate(this::sampleQuietly, delay, every.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops the boundaries, takes the last sample now (the tail's end) and waits for the probes to finish. */
    void stop() throws InterruptedException {
        sampling.shutdown();
        sampling.awaitTermination(1, TimeUnit.MINUTES);
        sample();
        probing.shutdown();
        if (!probing.awaitTermination(3, TimeUnit.MINUTES)) {
            BenchRun.log("soak: the last probes did not finish within 3 minutes");
        }
    }

    /** Stops sampling and probing at once (a failed run); after {@link #stop()} there is nothing left to stop. */
    void close() {
        sampling.shutdownNow();
        probing.shutdownNow();
    }

    List<Intervals.Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    List<Map<String, Object>> probeResults() {
        synchronized (probeResults) {
            return new ArrayList<>(probeResults);
        }
    }

    private void sampleQuietly() {
        try {
            sample();
        }
        catch (RuntimeException ex) { // a scheduled task that throws is never run again
            BenchRun.log("soak: a sample failed: " + ex);
        }
    }

    private void sample() {
        Intervals.Sample sample = new Intervals.Sample(Recorder.wallMicros(), SqlWatch.mark(), scheduled.get(),
                databaseCpu.seconds(), run.hybrid() ? ServerCounters.redisCpuSeconds(run.redis) : Double.NaN,
                Machine.ticks(), ServerCounters.bufferPool(run.servers));
        int index;
        synchronized (samples) {
            samples.add(sample);
            index = samples.size() - 1;
        }
        if (index > 0) {
            live(index);
        }
        probing.execute(() -> {
            Map<String, Object> timed = probes.time();
            synchronized (probeResults) {
                while (probeResults.size() <= index) {
                    probeResults.add(null);
                }
                probeResults.set(index, timed);
            }
            BenchRun.log(run.spec.describe() + ": probes after interval " + index + ": gauges refresh "
                    + timed.get("gauges_refresh_ms") + " ms, health " + timed.get("health_ms") + " ms, endpoint "
                    + timed.get("endpoint_ms") + " ms" + (timed.containsKey("endpoint_error")
                            ? " (" + timed.get("endpoint_error") + ")" : ""));
        });
    }

    /** The counters of the interval just ended, as a line on stderr (lateness comes in the final figures). */
    private void live(int index) {
        List<Intervals.Sample> sofar = samples();
        List<Map<String, Object>> intervals = Intervals.describe(run.plan, run.recorder,
                sofar.subList(index - 1, index + 1), List.of(), 0, false);
        Map<String, Object> interval = intervals.get(0);
        BenchRun.log(run.spec.describe() + ": interval " + index + ": scheduled "
                + interval.get("scheduled") + ", completed " + interval.get("completed") + ", purged "
                + interval.get("purged") + ", claim rounds " + interval.get("claim_rounds") + " (p99 "
                + interval.get("claim_round_p99_ms") + " ms), db cpu " + interval.get("db_cpu_ms_per_task")
                + " ms/task, db pages flushed " + interval.get("db_pages_flushed") + ", read from disk "
                + interval.get("db_pages_read_from_disk") + ", dirty at its end "
                + interval.get("db_dirty_pages_at_end")
                + ", started so far " + interval.get("started") + " of " + interval.get("due")
                + " due (p99 " + interval.get("lateness_p99_ms") + " ms)");
    }
}
