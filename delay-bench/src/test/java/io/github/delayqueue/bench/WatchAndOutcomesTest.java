package io.github.delayqueue.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WatchAndOutcomesTest {

    @Test
    void statementKinds() {
        assertThat(ClientCounters.kind("""
                SELECT id, task_type, task_key, payload, due_at FROM `t`
                WHERE status = ? AND due_at <= ?
                ORDER BY due_at
                LIMIT ?
                FOR UPDATE  SKIP LOCKED""")).isEqualTo(SqlWatch.Kind.CLAIM_SELECT);
        assertThat(ClientCounters.kind(
                "SELECT id, due_at FROM t WHERE status = 'SCHEDULED' LIMIT ? FOR UPDATE SKIP LOCKED"))
            .isEqualTo(SqlWatch.Kind.OTHER); // migration
        assertThat(ClientCounters.kind("UPDATE t SET status = 'RUNNING', owner = ? WHERE id IN (?)"))
            .isEqualTo(SqlWatch.Kind.MARK_RUNNING);
        assertThat(ClientCounters.kind("UPDATE t SET status = 'SUCCEEDED', lease_until = NULL WHERE id IN (?)"))
            .isEqualTo(SqlWatch.Kind.MARK_SUCCEEDED);
        assertThat(ClientCounters.kind("DELETE FROM t WHERE status = ? AND updated_at < ? ORDER BY due_at LIMIT ?"))
            .isEqualTo(SqlWatch.Kind.PURGE);
        assertThat(SqlWatch.affected(3)).isEqualTo(3);
        assertThat(SqlWatch.affected(new int[] { 1, -2, 4 })).isEqualTo(5); // SUCCESS_NO_INFO counts nothing
        assertThat(SqlWatch.affected(true)).isZero();
    }

    /** The shapes the watch goes by, on the library's current statements (read from its TaskSql, not copied). */
    @Test
    void theLibrarysOwnStatementsHaveTheWatchedShapes() {
        assertThat(libraryKind("SELECT_DUE_FOR_CLAIM")).isEqualTo(SqlWatch.Kind.CLAIM_SELECT);
        assertThat(libraryKind("SELECT_IDS_FOR_CLAIM")).isEqualTo(SqlWatch.Kind.CLAIM_SELECT);
        assertThat(libraryKind("SELECT_DUE_OF_TYPE_FOR_CLAIM")).isEqualTo(SqlWatch.Kind.CLAIM_SELECT);
        String typePart = "(" + LibrarySql.statement("SELECT_DUE_OF_TYPE_FOR_CLAIM")
            .formatted("`delay_task`", "`delay_task_status_type_due`") + ")";
        assertThat(ClientCounters.kind(LibrarySql.statement("SELECT_DUE_OF_TYPES_FOR_CLAIM")
            .formatted("`delay_task`", typePart + "\nUNION ALL\n" + typePart)))
            .as("a claim of two types").isEqualTo(SqlWatch.Kind.CLAIM_SELECT);
        assertThat(libraryKind("MARK_RUNNING")).isEqualTo(SqlWatch.Kind.MARK_RUNNING);
        assertThat(libraryKind("MARK_SUCCEEDED")).isEqualTo(SqlWatch.Kind.MARK_SUCCEEDED);
        assertThat(libraryKind("PURGE")).isEqualTo(SqlWatch.Kind.PURGE);
        // locking reads that are not claims: no claim round starts at them
        assertThat(libraryKind("SELECT_FOR_MIGRATION")).isEqualTo(SqlWatch.Kind.OTHER);
        assertThat(libraryKind("SELECT_EXPIRED_LEASES")).isEqualTo(SqlWatch.Kind.OTHER);
        // reads the claim columns but locks nothing: a restart's look at its own claims
        assertThat(libraryKind("SELECT_CLAIMED_BY")).isEqualTo(SqlWatch.Kind.OTHER);
        // writes of one claim that are neither a claim nor a success
        assertThat(libraryKind("MARK_STARTED")).isEqualTo(SqlWatch.Kind.OTHER);
        assertThat(libraryKind("EXTEND_LEASES")).isEqualTo(SqlWatch.Kind.OTHER);
    }

    /** The kind of the library's statement {@code name} for three rows (ids, and (id, claim) pairs if it has them). */
    private static SqlWatch.Kind libraryKind(String name) {
        return ClientCounters.kind(LibrarySql.statement(name)
            .formatted("`delay_task`", LibrarySql.placeholders(3), LibrarySql.pairPlaceholders(3)));
    }

    @Test
    void aClaimRoundRunsFromItsSelectToItsCommit() throws InterruptedException {
        SqlWatch.reset();
        SqlWatch.Mark before = SqlWatch.mark();
        SqlWatch.Transaction transaction = new SqlWatch.Transaction();
        transaction.statement(SqlWatch.Kind.OTHER, System.nanoTime());
        transaction.ended(); // no claim in it
        transaction.statement(SqlWatch.Kind.CLAIM_SELECT, System.nanoTime());
        SqlWatch.executed(SqlWatch.Kind.MARK_RUNNING, 7, 1000);
        Thread.sleep(2);
        transaction.ended();
        SqlWatch.executed(SqlWatch.Kind.PURGE, 1000, 5_000_000);
        SqlWatch.Window window = SqlWatch.between(before, SqlWatch.mark());
        assertThat(window.claimRoundNanos()).hasSize(1);
        assertThat(window.claimRoundNanos()[0]).isGreaterThanOrEqualTo(2_000_000);
        Map<String, Object> described = new LinkedHashMap<>();
        SqlWatch.describe(window, described);
        assertThat(described).containsEntry("claim_rounds", 1).containsEntry("claimed_per_round", 7.0)
            .containsEntry("purged_rows", 1000L).containsEntry("purge_statements", 1)
            .containsEntry("purge_max_ms", 5.0);
    }

    @Test
    void latenessOnBothClocksAndWhatFails() {
        BenchOptions options = BenchOptions.parse("--tasks", "4", "--lead", "1s");
        Plan plan = Plan.build(options, "burst", 0, 1);
        plan.place(1_000_000_000L);
        Recorder recorder = new Recorder(plan, 2);
        long due = plan.dueWallMicros[0];
        for (int i = 0; i < 3; i++) {
            plan.queueDueMillis[i] = due / 1000 + 1; // the queue clock a little ahead of the wall clock
            // 4 ms late on the wall clock, 3 ms on the queue clock
            recorder.started(i % 2, i, due / 1000 + 1, 1, due + 4_000, due + 1_000 + 3_000);
        }
        recorder.started(0, 2, due / 1000 + 1, 2, due + 9_000, due + 9_000); // slot 2 again
        Map<String, Object> result = new LinkedHashMap<>();
        Outcomes.describe(recorder, 2, result);
        assertThat(result).containsEntry("started", 3).containsEntry("lost", 1L).containsEntry("duplicates", 1L)
            .containsEntry("started_early", 0L).containsEntry("due_mismatch", 0L).containsEntry("retried", 1L)
            .containsEntry("lateness_p50_ms", 4.0).containsEntry("queue_lateness_p50_ms", 3.0)
            .containsEntry("first_start_after_due_ms", 4.0);
        assertThat(new RunResult(result).failed()).isTrue();

        Map<String, Object> clean = new LinkedHashMap<>(Map.of("duplicates", 0L, "lost", 0L, "started_early", 0L));
        assertThat(new RunResult(clean).failed()).isFalse();
        clean.put("started_early", 2L);
        assertThat(new RunResult(clean).failed()).isTrue();
    }

    @Test
    void aBurstWithAClusterLimitIsTwoTypesReportedApart() {
        BenchOptions options = BenchOptions.parse("--tasks", "4", "--lead", "1s", "--cluster-limit", "2");
        Plan plan = Plan.build(options, "burst", 0, 1);
        plan.place(1_000_000_000L);
        assertThat(List.of(plan.type(0), plan.type(1), plan.type(2), plan.type(3)))
            .containsExactly(BenchApp.TYPE, BenchApp.LIMITED_TYPE, BenchApp.TYPE, BenchApp.LIMITED_TYPE);
        Recorder recorder = new Recorder(plan, 1);
        long due = plan.dueWallMicros[0];
        for (int i = 0; i < 4; i++) {
            // the unlimited type 10 ms late, the limited one 1 and 2 s late
            long late = i % 2 == 0 ? 10_000 : i * 1_000_000L / 2 + 500_000;
            recorder.started(0, i, plan.queueDueMillis[i], 1, due + late, due + late);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        Outcomes.describe(recorder, 1, result);
        assertThat(result).containsEntry("cluster_limit", 2).containsEntry("unlimited_tasks", 2)
            .containsEntry("limited_tasks", 2).containsEntry("unlimited_p99_ms", 10.0)
            .containsEntry("limited_p99_ms", 2_000.0).containsEntry("unlimited_drain_per_s", 200.0)
            .containsEntry("limited_drain_per_s", 1.0);
        assertThatThrownBy(() -> BenchOptions.parse("--workload", "steady", "--cluster-limit", "2"))
            .hasMessageContaining("burst");
    }

    @Test
    void mixedDurationsPlanMarksEveryFortiethSlow() {
        BenchOptions options = BenchOptions.parse("--workload", "mixed-durations", "--tasks", "400", "--duration", "4s",
                "--lead", "2s");
        Plan plan = Plan.build(options, "mixed-durations", 0, 1);
        plan.place(0);
        int slow = 0;
        for (int i = 0; i < plan.size(); i++) {
            if (plan.tier[i] == Plan.SLOW) {
                slow++;
                assertThat(plan.workMillis[i]).isEqualTo(10_000);
            }
            else {
                assertThat(plan.workMillis[i]).isEqualTo(3);
            }
        }
        assertThat(slow).isEqualTo(10);
        assertThat(plan.firstDueWallMicros()).isEqualTo(2_000_000);
        assertThat(plan.lastDueWallMicros()).isEqualTo(2_000_000 + 4_000_000 * 399 / 400);
        assertThat(plan.upFront()).isTrue();
        assertThat(Waits.writePatience(plan).toSeconds()).isEqualTo(40);
    }

    @Test
    void actuatorAutoConfigurationsAreRecognized() {
        assertThat(ActuatorFilter.isActuator(
                "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration")).isTrue();
        assertThat(ActuatorFilter.isActuator(
                "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration"))
            .isTrue();
        assertThat(ActuatorFilter.isActuator(
                "org.springframework.boot.jdbc.autoconfigure.health.DataSourceHealthContributorAutoConfiguration"))
            .isTrue();
        assertThat(ActuatorFilter.isActuator(
                "io.github.delayqueue.autoconfigure.DelayQueueEndpointAutoConfiguration")).isTrue();
        assertThat(ActuatorFilter.isActuator(
                "io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration")).isFalse();
        assertThat(ActuatorFilter.isActuator(
                "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")).isFalse();
    }
}
