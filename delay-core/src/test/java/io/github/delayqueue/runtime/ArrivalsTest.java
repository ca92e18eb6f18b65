package io.github.delayqueue.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.api.TaskRequest;
import io.github.delayqueue.handler.JacksonPayloadCodec;
import io.github.delayqueue.store.ClaimedTask;
import io.github.delayqueue.test.InMemoryTaskStore;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The rate tasks come in at, which the purge keeps up with, from the highest id claimed or scheduled over about a
 * minute.
 */
class ArrivalsTest {

    private long nanos;

    private final Arrivals arrivals = new Arrivals(() -> nanos);

    @Test
    void unknownUntilTwoSamplesASecondApartThenTheRateBetweenThem() {
        assertThat(arrivals.perSecond()).as("nothing claimed yet").isEmpty();
        at(0, 1_000);
        assertThat(arrivals.perSecond()).isEmpty();
        at(500, 2_000);
        assertThat(arrivals.perSecond()).as("half a second on: no second sample").isEmpty();
        at(1_000, 3_000);
        assertThat(arrivals.perSecond()).hasValue(2_000.0);
    }

    @Test
    void itFollowsTheLastMinuteNotTheWholeRun() {
        for (int second = 0; second <= 120; second++) {
            at(second * 1_000L, 1 + (second <= 60 ? second * 5_000L : 300_000 + (second - 60) * 1_000L));
            arrivals.perSecond();
        }
        assertThat(arrivals.perSecond().getAsDouble())
            .as("5,000 a second for a minute, then 1,000 for a minute").isCloseTo(1_000.0, within(1.0));
    }

    @Test
    void aSampleAfterAnIdleMinuteSpansIt() {
        at(0, 1);
        arrivals.perSecond();
        at(90_000, 90_001);
        assertThat(arrivals.perSecond()).as("the purge idle between runs: the rate over the whole gap")
            .hasValue(1_000.0);
    }

    /**
     * An instance that claims nothing for a minute (it runs only rare types, or none, or nothing comes in) cannot tell
     * the rate: unknown, so the purge takes the share it takes for an unknown rate, not the least one, which would
     * let the table grow under a load this instance does not see (and work off a backlog slowly when nothing comes
     * in).
     */
    @Test
    void noIdMovingForAWindowIsUnknownNotNone() {
        at(0, 1_000);
        arrivals.perSecond();
        at(1_000, 2_000);
        assertThat(arrivals.perSecond()).hasValue(1_000.0);
        for (int second = 2; second <= 62; second++) {
            nanos = TimeUnit.SECONDS.toNanos(second);
            arrivals.perSecond();
        }
        assertThat(arrivals.perSecond()).as("no claim for a minute").isEmpty();
        at(63_000, 3_000);
        assertThat(arrivals.perSecond()).as("claims again").isPresent();
    }

    /** A task scheduled long ago and claimed now carries an old id: the rate goes by the newest. */
    @Test
    void anOlderIdClaimedLaterLeavesTheHighestAlone() {
        at(0, 10_000);
        arrivals.perSecond();
        at(1_000, 12_000);
        arrivals.saw(50);
        assertThat(arrivals.perSecond()).hasValue(2_000.0);
    }

    @Test
    void itWatchesTheClaimsOfASource() {
        TaskSource source = arrivals.watching((now, limit) -> new FetchResult(
                List.of(claimed(7), claimed(42), claimed(9)), now + 1));
        assertThat(source.fetch(100, 3).nextAt()).isEqualTo(101);
        arrivals.perSecond();
        nanos = TimeUnit.SECONDS.toNanos(1);
        arrivals.saw(1_042);
        assertThat(arrivals.perSecond()).as("from 42 to 1,042 in a second").hasValue(1_000.0);
    }

    /**
     * An instance sees tasks come in through its callers too: the highest id each of their writes created. Before,
     * only its claims counted, so the instance that runs the purge but claims only rare types read no rate (or a low
     * one) while its own callers scheduled thousands a second.
     */
    @Test
    void itCountsTheTasksThisInstancesCallersCreate() {
        QueueClock clock = new QueueClock(Clock.systemUTC());
        DefaultDelayQueue queue = new DefaultDelayQueue(new InMemoryTaskStore(), JdbcModeParts.indexer(), rows -> {
        }, new JacksonPayloadCodec(JsonMapper.builder().build()), 1000, Tiers.databaseOnly(), clock,
                new WakeSignal(clock), TaskEvents.NONE, TraceContextSource.NONE, arrivals::saw);
        long first = queue.schedule("t", "p", Duration.ofHours(1));
        arrivals.perSecond();
        nanos = TimeUnit.SECONDS.toNanos(1);
        List<TaskRequest> requests = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            requests.add(TaskRequest.of("t", "p").key("k" + i).delay(Duration.ofHours(1)).build());
        }
        queue.scheduleAll(requests);
        queue.schedule(TaskRequest.of("t", "p").key("k0").delay(Duration.ofHours(1)).build()); // exists: none created

        assertThat(first).isEqualTo(1);
        assertThat(arrivals.perSecond()).as("ids 1 to 101 in a second").hasValue(100.0);
    }

    private void at(long millis, long highestClaimed) {
        nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        arrivals.saw(highestClaimed);
    }

    private static ClaimedTask claimed(long id) {
        return new ClaimedTask(id, "t", null, "{}", 0, 1, null, 1, 0, null);
    }
}
