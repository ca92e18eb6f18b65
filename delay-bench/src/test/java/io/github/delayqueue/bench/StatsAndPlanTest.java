package io.github.delayqueue.bench;

import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StatsAndPlanTest {

    @Test
    void nearestRankPercentiles() {
        double[] sorted = new double[100];
        for (int i = 0; i < 100; i++) {
            sorted[i] = i + 1;
        }
        assertThat(Stats.percentile(sorted, 0.5)).isEqualTo(50);
        assertThat(Stats.percentile(sorted, 0.99)).isEqualTo(99);
        assertThat(Stats.percentile(sorted, 1.0)).isEqualTo(100);
        assertThat(Stats.percentile(sorted, 0)).isEqualTo(1);
        assertThat(Stats.percentile(new double[0], 0.5)).isNaN();
        assertThat(Stats.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(Stats.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
    }

    @Test
    void steadyPlanIsUniform() {
        BenchOptions options = BenchOptions.parse("--workload", "steady", "--rate", "200", "--duration", "2s");
        Plan plan = Plan.build(options, "steady", 200, 1);
        plan.place(1_000_000_000);
        assertThat(plan.size()).isEqualTo(400);
        assertThat(plan.dueWallMicros[0]).isEqualTo(1_000_000_000 + 1_000_000);
        assertThat(plan.dueWallMicros[1] - plan.dueWallMicros[0]).isEqualTo(5_000);
        assertThat(plan.lastDueWallMicros()).isEqualTo(1_000_000_000 + 1_000_000 + 1_995_000);
        assertThat(plan.dueAt(0)).isEqualTo(java.time.Instant.ofEpochSecond(1001));
    }

    @Test
    void mixedPlanHasTwoTiersAroundTheThreshold() {
        BenchOptions options = BenchOptions.parse("--workload", "mixed", "--rate", "1000", "--duration", "10s");
        Plan plan = Plan.build(options, "mixed", 1000, 7);
        plan.place(0);
        int far = 0;
        for (int i = 0; i < plan.size(); i++) {
            long delay = (plan.dueWallMicros[i] - plan.scheduleAtMicros[i]) / 1000;
            if (plan.tier[i] == Plan.FAR) {
                far++;
                assertThat(delay).isBetween(11_000L, 30_000L);
            }
            else {
                assertThat(delay).isBetween(1_000L, 9_500L);
            }
        }
        assertThat(far / (double) plan.size()).isBetween(0.17, 0.23);
    }

    @Test
    void burstIsOneInstant() {
        BenchOptions options = BenchOptions.parse("--tasks", "10");
        Plan plan = Plan.build(options, "burst", 0, 1);
        plan.place(100);
        for (long due : plan.dueWallMicros) {
            assertThat(due).isEqualTo(5_000_100);
        }
    }

    @Test
    void statementShapesFoldPlaceholderListsAndRows() {
        assertThat(ClientCounters.label("UPDATE t SET a = ?\n  WHERE id IN (?, ?, ?) AND s = 'X'"))
            .isEqualTo("UPDATE t SET a = ? WHERE id IN (?..) AND s = 'X'");
        assertThat(ClientCounters.label("INSERT INTO t (a, b) VALUES (?, ?, 0), (?, ?, 0), (?, ?, 0)"))
            .isEqualTo("INSERT INTO t (a, b) VALUES (?.., 0),..");
    }

    /** A CI run's bulk workload died of a StackOverflowError in the regex that folded a long list of pairs. */
    @Test
    void aStatementOfThousandsOfPairsFoldsWithoutOverflowingTheStack() {
        String pairs = String.join(", ", Collections.nCopies(20_000, "(?, ?)"));
        String ids = String.join(", ", Collections.nCopies(20_000, "?"));
        assertThat(ClientCounters.label("UPDATE t SET a = ? WHERE id IN (" + ids + ") AND (id, c) IN (" + pairs + ")"))
            .isEqualTo("UPDATE t SET a = ? WHERE id IN (?..) AND (id, c) IN ((?..),..)");
    }
}
