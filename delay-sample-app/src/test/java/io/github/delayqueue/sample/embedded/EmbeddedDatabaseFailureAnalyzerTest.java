package io.github.delayqueue.sample.embedded;

import java.time.Duration;

import ch.vorburger.exec.ManagedProcessException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An embedded MariaDB that would not start is reported with what happened first, the server's output in it, and what
 * to do last: Spring Boot prints the action after the description, so the advice is the last thing on the screen.
 */
class EmbeddedDatabaseFailureAnalyzerTest {

    private final EmbeddedDatabaseFailureAnalyzer analyzer = new EmbeddedDatabaseFailureAnalyzer();

    @Test
    void aTimeoutSaysSoShowsTheServerAndAdvisesAnOwnDatabaseOrMoreTime() {
        ManagedProcessException server = new ManagedProcessException("Database does not seem to have started up "
                + "correctly? Magic string not seen in 180000ms: : ready for connections., last 100 lines of console:\n"
                + "2026-12-01 22:05:46 0 [Note] InnoDB: Buffer pool(s) load completed");
        EmbeddedDatabaseStartException failure = new EmbeddedDatabaseStartException("not ready", true,
                Duration.ofMinutes(3), server);

        FailureAnalysis analysis = analyzer.analyze(new IllegalStateException("wrapped", failure));

        assertThat(analysis.getDescription()).startsWith("The embedded MariaDB was not ready for connections within "
                + "180 s, twice.")
            .contains("Buffer pool(s) load completed");
        assertThat(analysis.getAction()).startsWith("Use a MySQL or MariaDB of your own: set spring.datasource.url")
            .contains("SPRING_DATASOURCE_URL=jdbc:mysql://")
            .endsWith("--sample.embedded.start-timeout=360s.");
        assertThat(analysis.getCause()).isSameAs(failure);
    }

    @Test
    void anotherFailureAdvisesAnOwnDatabaseOnly() {
        EmbeddedDatabaseStartException failure = new EmbeddedDatabaseStartException("it failed", false,
                Duration.ofMinutes(3), new ManagedProcessException("error while loading shared libraries: "
                        + "libcrypt.so.1"));

        FailureAnalysis analysis = analyzer.analyze(failure);

        assertThat(analysis.getDescription()).startsWith("The embedded MariaDB could not be installed or started.")
            .contains("libcrypt.so.1");
        assertThat(analysis.getAction()).contains("spring.datasource.url").doesNotContain("start-timeout");
    }
}
