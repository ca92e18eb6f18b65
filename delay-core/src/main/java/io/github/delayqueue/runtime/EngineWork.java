package io.github.delayqueue.runtime;

import java.time.Duration;

/**
 * One of the engine's loops or periodic jobs as the health endpoint shows it: lease renewal, lease recovery, the
 * dispatcher, the result writer and the others each carry a guarantee, so one that has stopped completing its runs
 * makes the queue's health DOWN and says which one, instead of ending silently.
 *
 * @param name what it does, e.g. {@code "lease renewal"}
 * @param sinceLastRun how long ago it last completed a run without failing (or started)
 * @param stalled whether that is too long ago: three of its intervals, and at least 15 seconds
 */
record EngineWork(String name, Duration sinceLastRun, boolean stalled) {
}
