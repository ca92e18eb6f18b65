package io.github.delayqueue.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RunResultTest {

    @Test
    void theJsonLineKeepsTheFieldOrderPutsTheCommitLastAndPrintsNoNaN() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("workload", "burst");
        fields.put("mode", "hybrid");
        fields.put("instances", 2);
        fields.put("redis", "cluster");
        fields.put("shards", 3);
        fields.put("drain_per_s", Double.NaN);
        fields.put("clock_offset_ms", List.of(0.5, Double.POSITIVE_INFINITY));
        fields.put("duplicates", 0L);
        RunResult result = new RunResult(fields).withCommit("abc123");
        assertThat(result.json()).isEqualTo("{\"workload\":\"burst\",\"mode\":\"hybrid\",\"instances\":2,"
                + "\"redis\":\"cluster\",\"shards\":3,\"drain_per_s\":null,\"clock_offset_ms\":[0.5,null],"
                + "\"duplicates\":0,\"commit\":\"abc123\"}");

        RunResult parsed = RunResult.parse(result.json()); // as a fresh child JVM's result arrives
        assertThat(parsed.combination()).isEqualTo(result.combination());
        assertThat(parsed.modeLabel()).isEqualTo("hybrid (cluster, 3 shards)");
        assertThat(parsed.instances()).isEqualTo(2);
        assertThat(parsed.failed()).isFalse();
        assertThat(parsed.error()).isNull();
    }

    @Test
    void aRunThatThrewCarriesItsCombinationAndTheError() {
        BenchOptions options = BenchOptions.parse("--workload", "enqueue", "--mode", "jdbc", "--enqueue-threads", "4");
        RunSpec spec = RunSpec.expand(options).get(0);
        RunResult failure = RunResult.failure(spec, new IllegalStateException("boom"));
        assertThat(failure.workload()).isEqualTo("enqueue");
        assertThat(failure.enqueueThreads()).isEqualTo(4);
        assertThat(failure.error()).isEqualTo("java.lang.IllegalStateException: boom");
    }
}
