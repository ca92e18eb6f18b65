package io.github.delayqueue.bench;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunSpecTest {

    @Test
    void perWorkloadDefaults() {
        BenchOptions options = BenchOptions.parse("--workload", "burst,soak,mixed-durations");
        assertThat(options.instances("burst")).containsExactly(1);
        assertThat(options.instances("mixed-durations")).containsExactly(3);
        assertThat(options.tasks("burst")).isEqualTo(20_000);
        assertThat(options.tasks("mixed-durations")).isEqualTo(1500);
        assertThat(options.duration("steady")).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.duration("soak")).isEqualTo(Duration.ofMinutes(10));
        assertThat(options.lead("burst")).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.lead("soak")).isEqualTo(Duration.ofSeconds(1));
        assertThat(options.actuator("soak")).isTrue();
        assertThat(options.actuator("burst")).isFalse();
        assertThat(options.ceiling("burst")).isTrue();
        assertThat(options.ceiling("soak")).isFalse();
        assertThat(options.ceiling("mixed-durations")).isFalse();
        assertThat(options.preloadFinished).isEqualTo(5_000_000);
        assertThat(options.preloadFuture).isEqualTo(1_000_000);
        assertThat(options.retention).isEqualTo(Duration.ofMinutes(1));
        assertThat(options.reportEvery).isEqualTo(Duration.ofMinutes(1));
        assertThat(options.slowEvery).isEqualTo(40);
        assertThat(options.slowFor).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void givenOptionsWinOverTheDefaults() {
        BenchOptions options = BenchOptions.parse("--workload", "soak,mixed-durations", "--instances", "2",
                "--duration", "20s", "--tasks", "400", "--actuator", "false", "--preload-finished", "50_000",
                "--preload-future", "0", "--retention", "5s", "--report-every", "5s", "--slow-for", "1s",
                "--fast-for", "1ms", "--slow-every", "20", "--redis", "single,cluster", "--shards", "4",
                "--redis-cluster-nodes", "h:7001");
        assertThat(options.instances("mixed-durations")).containsExactly(2);
        assertThat(options.duration("soak")).isEqualTo(Duration.ofSeconds(20));
        assertThat(options.tasks("mixed-durations")).isEqualTo(400);
        assertThat(options.actuator("soak")).isFalse();
        assertThat(options.preloadFinished).isEqualTo(50_000);
        assertThat(options.preloadFuture).isZero();
        assertThat(options.reportEvery).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.redis).containsExactly("single", "cluster");
        assertThat(options.shards).isEqualTo(4);
        assertThat(options.redisClusterNodes).isEqualTo("h:7001");
    }

    @Test
    void badNewOptions() {
        assertThatThrownBy(() -> BenchOptions.parse("--workload", "sok")).hasMessageContaining("--workload");
        assertThatThrownBy(() -> BenchOptions.parse("--redis", "sentinel")).hasMessageContaining("--redis");
        assertThatThrownBy(() -> BenchOptions.parse("--report-every", "0s")).hasMessageContaining("--report-every");
        assertThatThrownBy(() -> BenchOptions.parse("--preload-finished", "-1"))
            .hasMessageContaining("--preload-finished");
        assertThatThrownBy(() -> BenchOptions.parse("--workload", "mixed-durations", "--tasks", "10"))
            .hasMessageContaining("--slow-every");
    }

    @Test
    void mixedDurationsRunsBothPrefetchVariants() {
        List<RunSpec> runs = RunSpec.expand(BenchOptions.parse("--workload", "mixed-durations", "--repeat", "1"));
        assertThat(runs).extracting(RunSpec::variant).containsExactly(RunSpec.PREFETCH_DEFAULT, RunSpec.PREFETCH_ZERO);
        assertThat(runs).extracting(RunSpec::instances).containsOnly(3);
        assertThat(runs.get(1).variantProperties()).containsEntry("delay.worker.prefetch", "0");
        assertThat(runs.get(0).variantProperties()).isEmpty();
    }

    @Test
    void jdbcRunsOnceWhateverTheRedisSetups() {
        List<RunSpec> runs = RunSpec.expand(BenchOptions.parse("--mode", "hybrid,jdbc", "--redis", "single,cluster",
                "--repeat", "2"));
        assertThat(runs).extracting(RunSpec::describe).containsExactly("burst hybrid x1 #1",
                "burst hybrid (cluster) x1 #1", "burst jdbc x1 #1", "burst hybrid x1 #2",
                "burst hybrid (cluster) x1 #2", "burst jdbc x1 #2");
    }

    @Test
    void ratesAreADimensionOfPacedWorkloadsOnly() {
        List<RunSpec> runs = RunSpec.expand(BenchOptions.parse("--workload", "burst,soak", "--rate", "100,200",
                "--repeat", "1"));
        assertThat(runs).extracting(RunSpec::describe).containsExactly("burst hybrid x1 #1", "soak hybrid x1 100/s #1",
                "soak hybrid x1 200/s #1");
    }

    @Test
    void instancePropertiesLetTheVariantWinAndPointAtTheCluster() {
        BenchOptions options = BenchOptions.parse("--workload", "mixed-durations", "--prefetch", "64",
                "--delay.worker.prefetch=32", "--redis", "cluster");
        Servers servers = Servers.resolve(options.properties, "n1:7001,n2:7002", java.util.Map.of());
        RunSpec zero = new RunSpec("mixed-durations", "hybrid", 3, 0, "cluster", RunSpec.PREFETCH_ZERO, 1);
        var properties = Instances.properties(options, servers, zero, "db", "pre", java.util.Map.of());
        assertThat(properties).containsEntry("delay.worker.prefetch", "0")
            .containsEntry("spring.data.redis.cluster.nodes", "n1:7001,n2:7002")
            .containsEntry("delay.redis.shards", "3")
            .containsEntry("bench.actuator", "false")
            .doesNotContainKey("spring.data.redis.url");
        RunSpec standard = new RunSpec("mixed-durations", "hybrid", 3, 0, "single", RunSpec.PREFETCH_DEFAULT, 1);
        assertThat(Instances.properties(options, servers, standard, "db", "pre", java.util.Map.of()))
            .containsEntry("delay.worker.prefetch", "32") // the command line's property after --prefetch
            .containsKey("spring.data.redis.url");
    }

    @Test
    void bulkIsPacedWithoutTheCeilingAndStartsItsOperationsAThirdIn() {
        BenchOptions options = BenchOptions.parse("--workload", "bulk", "--rate", "2000");

        assertThat(BenchOptions.paced("bulk")).isTrue();
        assertThat(options.duration("bulk")).isEqualTo(Duration.ofSeconds(90));
        assertThat(options.bulkAt("bulk")).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.bulkTasks).isEqualTo(100_000);
        assertThat(options.ceiling("bulk")).isFalse();
        assertThat(Plan.size(options, "bulk", 2000)).isEqualTo(180_000);
        assertThat(BenchOptions.parse("--workload", "bulk", "--duration", "6s", "--bulk-tasks", "2000", "--bulk-at",
                "2s").bulkAt("bulk")).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> BenchOptions.parse("--workload", "bulk", "--duration", "6s", "--bulk-at", "6s"))
            .hasMessageContaining("--bulk-at");
    }
}
