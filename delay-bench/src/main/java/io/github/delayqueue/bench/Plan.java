package io.github.delayqueue.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.runtime.QueueClock;

/**
 * When each task of a run is scheduled and when it falls due. Slots are 0..n-1 in scheduling order. Due times are
 * instants of the caller's wall clock ({@code Instant.now()} plus a delay, what an application passes to
 * {@code schedule(type, payload, Instant)}), in epoch microseconds from an origin taken just before the workload
 * starts; lateness is measured against them with {@code Instant.now()} in the handler.
 *
 * <ul>
 * <li>burst: all scheduled at once with one {@code scheduleAll}, all due at origin + lead; with
 * {@code --cluster-limit}, every other task of {@link BenchApp#LIMITED_TYPE}, held to that cluster-wide limit;</li>
 * <li>steady, soak and bulk: {@code rate} per second over {@code duration}, each due lead after its scheduling time,
 * so due times are uniform;</li>
 * <li>mixed: like steady, but 80% with a delay uniform in [lead, threshold - 0.5s] (indexed at once in hybrid mode)
 * and 20% uniform in [threshold + 1s, farMax] (kept in the database until migration moves them);</li>
 * <li>enqueue: like burst, all due at origin + lead, but scheduled by single calls from several threads, so the
 * consumers drain while the calls go on; when each call returned is noted ({@link #calledWallMicros});</li>
 * <li>mixed-durations: all scheduled at once, due uniformly over {@code duration} from origin + lead; every
 * {@code slowEvery}-th handler takes {@code slowFor}, the others {@code fastFor}.</li>
 * </ul>
 */
final class Plan {

    static final byte NEAR = 0;

    static final byte FAR = 1;

    static final byte FAST = 0;

    static final byte SLOW = 1;

    /** burst with {@code --cluster-limit}: a task of the type without a limit. */
    static final byte UNLIMITED = 0;

    /** burst with {@code --cluster-limit}: a task of the type with the limit. */
    static final byte LIMITED = 1;

    /**
     * In {@link #queueDueMillis}: the task was scheduled when its due time had passed on the queue clock, so the
     * library stored its own "now", which the benchmark cannot know to the millisecond; not checked.
     */
    static final long DUE_UNCHECKED = Long.MIN_VALUE;

    final String workload;

    /** Microseconds after the origin at which each slot is scheduled (non-decreasing). */
    final long[] scheduleAtMicros;

    /** The caller's due time of each slot, epoch microseconds of the wall clock (filled by {@link #place}). */
    final long[] dueWallMicros;

    /** mixed: NEAR/FAR; mixed-durations: FAST/SLOW; burst with {@code --cluster-limit}: UNLIMITED/LIMITED. */
    final byte[] tier;

    /** How long each slot's handler works, in milliseconds (0: returns at once). */
    final int[] workMillis;

    /**
     * The due time on the queue's clock that the producing instance made of each slot's instant when it scheduled
     * it; the task's {@code TaskContext.dueAt} should be exactly this (filled by {@link #request}).
     */
    final long[] queueDueMillis;

    /** enqueue: when each slot's {@code schedule()} returned, epoch microseconds of the wall clock (0: not yet). */
    final long[] calledWallMicros;

    /** burst: the {@code clusterConcurrency} of {@link BenchApp#LIMITED_TYPE}'s tasks; 0 when the burst has none. */
    int clusterLimit;

    /** Delay of each slot after its scheduling time, in microseconds (burst-like plans: after the origin). */
    private final long[] delayMicros;

    private Plan(String workload, int size) {
        this.workload = workload;
        this.scheduleAtMicros = new long[size];
        this.dueWallMicros = new long[size];
        this.delayMicros = new long[size];
        this.tier = new byte[size];
        this.workMillis = new int[size];
        this.queueDueMillis = new long[size];
        this.calledWallMicros = new long[size];
    }

    int size() {
        return dueWallMicros.length;
    }

    /** Whether every slot is scheduled up front, in one go, rather than paced over time. */
    boolean upFront() {
        return !BenchOptions.paced(workload);
    }

    static int size(BenchOptions options, String workload, int rate) {
        return switch (workload) {
            case "burst", "mixed-durations", "enqueue" -> options.tasks(workload);
            default -> (int) Math.max(1, Math.round(rate * options.duration(workload).toMillis() / 1000.0));
        };
    }

    static Plan build(BenchOptions options, String workload, int rate, long seed) {
        Plan plan = new Plan(workload, size(options, workload, rate));
        int n = plan.size();
        long lead = options.lead(workload).toNanos() / 1000;
        switch (workload) {
            case "burst", "enqueue" -> {
                plan.clusterLimit = workload.equals("burst") ? options.clusterLimit : 0;
                for (int i = 0; i < n; i++) {
                    plan.delayMicros[i] = lead;
                    // interleaved, so both types are due alike and neither is scheduled first
                    plan.tier[i] = plan.clusterLimit > 0 && i % 2 == 1 ? LIMITED : UNLIMITED;
                }
            }
            case "steady", "soak", "bulk" -> {
                for (int i = 0; i < n; i++) {
                    plan.scheduleAtMicros[i] = Math.round(i * 1_000_000.0 / rate);
                    plan.delayMicros[i] = lead;
                }
            }
            case "mixed" -> {
                Random random = new Random(seed);
                long threshold = options.threshold.toNanos() / 1000;
                long nearMax = Math.max(lead + 1000, threshold - 500_000);
                long farMin = threshold + 1_000_000;
                long farMax = Math.max(farMin + 1000, options.effectiveFarMax().toNanos() / 1000);
                for (int i = 0; i < n; i++) {
                    plan.scheduleAtMicros[i] = Math.round(i * 1_000_000.0 / rate);
                    boolean near = random.nextDouble() < 0.8;
                    plan.tier[i] = near ? NEAR : FAR;
                    // whole milliseconds, as an application's delays usually are
                    long delay = near ? lead + (long) (random.nextDouble() * (nearMax - lead))
                            : farMin + (long) (random.nextDouble() * (farMax - farMin));
                    plan.delayMicros[i] = delay / 1000 * 1000;
                }
            }
            case "mixed-durations" -> {
                long window = options.duration(workload).toNanos() / 1000;
                int slowFor = (int) options.slowFor.toMillis();
                int fastFor = (int) options.fastFor.toMillis();
                for (int i = 0; i < n; i++) {
                    plan.delayMicros[i] = lead + window * i / n;
                    // the slow ones spread evenly, starting with the first
                    boolean slow = i % options.slowEvery == 0;
                    plan.tier[i] = slow ? SLOW : FAST;
                    plan.workMillis[i] = slow ? slowFor : fastFor;
                }
            }
            default -> throw new IllegalArgumentException(workload);
        }
        return plan;
    }

    /** Fixes the due times against the origin, epoch microseconds of the wall clock. */
    void place(long originWallMicros) {
        for (int i = 0; i < size(); i++) {
            long scheduledAt = upFront() ? 0 : scheduleAtMicros[i];
            dueWallMicros[i] = originWallMicros + scheduledAt + delayMicros[i];
        }
    }

    /** The due time the caller passes for {@code slot}. */
    Instant dueAt(int slot) {
        long micros = dueWallMicros[slot];
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
    }

    /**
     * The request for {@code slot}: its payload is the slot, its due time the caller's instant. Made just before it
     * is scheduled, so the queue-clock due time noted for it uses the offset the library will use.
     */
    TaskRequest request(int slot, QueueClock clock) {
        Instant dueAt = dueAt(slot);
        queueDueMillis[slot] = clock.toQueueMillis(dueAt);
        return TaskRequest.of(type(slot), slot).dueAt(dueAt).build();
    }

    /** The task type of {@code slot}: the limited one for half a burst with {@code --cluster-limit}. */
    String type(int slot) {
        return clusterLimit > 0 && tier[slot] == LIMITED ? BenchApp.LIMITED_TYPE : BenchApp.TYPE;
    }

    List<TaskRequest> requests(int from, int to, QueueClock clock) {
        List<TaskRequest> requests = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            requests.add(request(i, clock));
        }
        return requests;
    }

    long firstDueWallMicros() {
        long first = Long.MAX_VALUE;
        for (long due : dueWallMicros) {
            first = Math.min(first, due);
        }
        return first;
    }

    long lastDueWallMicros() {
        long last = Long.MIN_VALUE;
        for (long due : dueWallMicros) {
            last = Math.max(last, due);
        }
        return last;
    }
}
