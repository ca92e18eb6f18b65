package io.github.delayqueue.runtime;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.function.LongSupplier;

import io.github.delayqueue.store.ClaimedTask;

/**
 * How fast tasks come in, on every instance together: how fast the highest id among the tasks this instance claims or
 * schedules grew over about the last minute. Ids count up across the table, so the newest task an instance claims or
 * schedules carries the count of all that came in before it, whichever instance scheduled them. An instance sees the
 * rate from its claims when it runs every type, and from its own calls when it schedules (an instance whose claims are
 * rare, one that runs rare types only, still does in most applications); one that does neither often reads no rate
 * ({@link #perSecond()}). The purge deletes at a share above this rate ({@link RetentionPurge}), so the table does not
 * grow and a backlog shrinks, without taking more of the database's time than that needs. Read from what the instance
 * does anyway, not from the table: a {@code SELECT MAX(id)} once a second beside the purge made minutes of the issue's
 * soak 150 ms late at p99 where the same pace without it read 6-12 ms (delay-bench's README, session 16).
 */
final class Arrivals {

    /** The shortest time between two samples: the rate needs no finer grain than the purge's rounds. */
    static final long SAMPLE_NANOS = 1_000_000_000L;

    /** How far back the rate looks: long enough to even out bursts, short enough to follow a change of load. */
    static final long WINDOW_NANOS = 60_000_000_000L;

    private final LongSupplier nanoTime;

    /** The highest id claimed or scheduled so far, 0 before the first; written by the dispatcher and by callers. */
    private final LongAccumulator highest = new LongAccumulator(Math::max, 0);

    /** The samples, oldest first, read by the purge's rounds, one at a time: the oldest is a window old at most. */
    private final Deque<Sample> samples = new ArrayDeque<>();

    private record Sample(long nanos, long id) {
    }

    Arrivals() {
        this(System::nanoTime);
    }

    /** With the clock ({@link System#nanoTime()} or a test's) the samples are timed by. */
    Arrivals(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** {@code source}, telling this the ids of the tasks it claims. */
    TaskSource watching(TaskSource source) {
        return (now, limit) -> {
            FetchResult result = source.fetch(now, limit);
            for (ClaimedTask task : result.tasks()) {
                saw(task.id());
            }
            return result;
        };
    }

    /** A task this instance claimed, or created for a caller (ids of one write: its highest is enough). */
    void saw(long id) {
        highest.accumulate(id);
    }

    /**
     * Tasks a second, over the time since the oldest sample kept, sampling the highest id seen first when the last
     * sample is a second old. Empty until two samples a second apart after the first claim, and while the highest id
     * has not moved across the samples kept (a window): this instance then sees nothing come in, which is not to say
     * nothing does (it may claim only rare types, or none), and a rate of 0 would keep a backlog at the least share.
     */
    OptionalDouble perSecond() {
        long now = nanoTime.getAsLong();
        long id = highest.get();
        Sample last = samples.peekLast();
        if (id > 0 && (last == null || now - last.nanos >= SAMPLE_NANOS)) {
            samples.addLast(new Sample(now, id));
            dropOlderThanTheWindow(now);
        }
        Sample oldest = samples.peekFirst();
        Sample newest = samples.peekLast();
        if (oldest == newest || oldest.id == newest.id) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of((newest.id - oldest.id) * 1e9 / (newest.nanos - oldest.nanos));
    }

    /** Keeps, of the samples a window old or more, only the newest: the rate spans a window, no more. */
    private void dropOlderThanTheWindow(long now) {
        while (samples.size() > 2) {
            Sample oldest = samples.removeFirst();
            if (now - samples.peekFirst().nanos < WINDOW_NANOS) {
                samples.addFirst(oldest);
                return;
            }
        }
    }
}
