package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.store.TaskInspector.CumulativeCounts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ThresholdAdvisorTest {

    private static final Duration MIGRATION = Duration.ofSeconds(30);

    /** Cumulative counts with {@code count} tasks at each of the given delays. */
    private static CumulativeCounts counts(Object... delayAndCount) {
        long[] perBound = new long[ThresholdAdvisor.BOUNDS.size()];
        long total = 0;
        for (int i = 0; i < delayAndCount.length; i += 2) {
            Duration delay = (Duration) delayAndCount[i];
            long count = ((Number) delayAndCount[i + 1]).longValue();
            total += count;
            for (int b = 0; b < perBound.length; b++) {
                if (delay.compareTo(ThresholdAdvisor.BOUNDS.get(b)) <= 0) {
                    perBound[b] += count;
                }
            }
        }
        List<Long> list = new ArrayList<>();
        for (long value : perBound) {
            list.add(value);
        }
        return new CumulativeCounts(total, list);
    }

    @Test
    void suggestsTheShortestBoundCoveringMostRequestedDelays() {
        CumulativeCounts requested = counts(Duration.ofMinutes(3), 90, Duration.ofMinutes(12), 7,
                Duration.ofDays(3), 3);
        CumulativeCounts pending = counts(Duration.ofMinutes(3), 40, Duration.ofMinutes(12), 10);

        ThresholdAdvisor.Advice advice = ThresholdAdvisor.advise(requested, pending, MIGRATION, Duration.ofHours(1),
                50);

        assertThat(advice.suggested()).isEqualTo(Duration.ofMinutes(15));
        assertThat(advice.redisTasks()).isEqualTo(50);
        assertThat(advice.redisBytes()).isEqualTo(50 * ThresholdAdvisor.BYTES_PER_TASK);
        assertThat(advice.reason()).startsWith("97% of the 100 most recent tasks asked for a delay of at most 15m")
            .contains("no migration")
            .endsWith(".")
            .doesNotContain("\n");
    }

    @Test
    void staysAtLeastTwiceTheMigrationInterval() {
        CumulativeCounts requested = counts(Duration.ofSeconds(2), 100);
        CumulativeCounts pending = counts(Duration.ofSeconds(2), 5);

        ThresholdAdvisor.Advice advice = ThresholdAdvisor.advise(requested, pending, MIGRATION, Duration.ofHours(1),
                5);

        assertThat(advice.suggested()).isEqualTo(Duration.ofMinutes(1));
        assertThat(advice.reason()).contains("at least twice delay.hybrid.migration-interval (30s)");
    }

    @Test
    void staysWithinTheRedisMemoryBudget() {
        CumulativeCounts requested = counts(Duration.ofHours(20), 100);
        // Three million tasks due within a day, two hundred thousand within six hours.
        CumulativeCounts pending = counts(Duration.ofHours(5), 200_000, Duration.ofHours(20), 2_800_000);

        ThresholdAdvisor.Advice advice = ThresholdAdvisor.advise(requested, pending, MIGRATION, Duration.ofHours(1),
                0);

        assertThat(advice.suggested()).isEqualTo(Duration.ofHours(12));
        assertThat(advice.redisBytes()).isLessThanOrEqualTo(ThresholdAdvisor.BUDGET_BYTES);
        assertThat(advice.reason()).contains("over the 100.0 MB budget").contains("by migration");
    }

    @Test
    void withoutDataKeepsTheCurrentThreshold() {
        CumulativeCounts none = counts();

        ThresholdAdvisor.Advice advice = ThresholdAdvisor.advise(none, none, MIGRATION, Duration.ofMinutes(20), 0);

        assertThat(advice.suggested()).isEqualTo(Duration.ofMinutes(20));
        assertThat(advice.reason()).contains("nothing to learn from");
    }

    @Test
    void durationsAndSizesReadShort() {
        assertThat(Texts.duration(Duration.ofMinutes(90))).isEqualTo("1h30m");
        assertThat(Texts.duration(Duration.ofDays(7))).isEqualTo("7d");
        assertThat(Texts.duration(Duration.ofMillis(1500))).isEqualTo("1s500ms");
        assertThat(Texts.duration(Duration.ZERO)).isEqualTo("0s");
        assertThat(Texts.bytes(950)).isEqualTo("950 B");
        assertThat(Texts.bytes(12_345_678)).isEqualTo("12.3 MB");
    }
}
