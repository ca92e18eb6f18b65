package io.github.delayqueue.bench;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchOptionsTest {

    @Test
    void defaultsAreTheIssueWorkload() {
        BenchOptions options = BenchOptions.parse();
        assertThat(options.modes).containsExactly("hybrid");
        assertThat(options.workloads).containsExactly("burst");
        assertThat(options.tasks("burst")).isEqualTo(20_000);
        assertThat(options.rates).containsExactly(200);
        assertThat(options.repeat).isEqualTo(3);
        assertThat(options.effectiveCeilingBatch()).isEqualTo(500); // min(8 threads + 512 prefetch, batch size 500)
    }

    @Test
    void listsBothSpellingsAndPassThroughProperties() {
        BenchOptions options = BenchOptions.parse("--mode", "hybrid,jdbc", "--instances=1,2", "--rate", "200,2000",
                "--duration", "5s", "--prefetch", "492", "--delay.hybrid.sweep-grace=60s",
                "--spring.datasource.url=jdbc:mysql://db:3306/x");
        assertThat(options.modes).containsExactly("hybrid", "jdbc");
        assertThat(options.instances("burst")).containsExactly(1, 2);
        assertThat(options.rates).containsExactly(200, 2000);
        assertThat(options.duration("steady")).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.effectiveCeilingBatch()).isEqualTo(500);
        assertThat(options.properties).containsEntry("delay.hybrid.sweep-grace", "60s")
            .containsEntry("spring.datasource.url", "jdbc:mysql://db:3306/x");
    }

    @Test
    void durations() {
        assertThat(BenchOptions.duration("x", "500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(BenchOptions.duration("x", "2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(BenchOptions.duration("x", "PT1S")).isEqualTo(Duration.ofSeconds(1));
        assertThat(BenchOptions.duration("x", "250")).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void badInputNamesTheOption() {
        assertThatThrownBy(() -> BenchOptions.parse("--mode", "redis")).hasMessageContaining("--mode");
        assertThatThrownBy(() -> BenchOptions.parse("--tasks", "0")).hasMessageContaining("--tasks");
        assertThatThrownBy(() -> BenchOptions.parse("--nope", "1")).hasMessageContaining("--nope");
        assertThatThrownBy(() -> BenchOptions.parse("--threshold", "2s", "--migration-interval", "2s"))
            .hasMessageContaining("--migration-interval");
    }
}
