package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.testservices.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker-only application stays up after its {@code main} returns, although every thread that does the engine's
 * work is a daemon, and runs a task that falls due later; it exits once stopped. In a JVM of its own, because what is
 * under test is whether that JVM exits.
 */
class KeepAliveIT {

    @Test
    void aWorkerOnlyApplicationOutlivesItsMainAndRunsATaskDueLater(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("worker.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-cp", System.getProperty("java.class.path"), WorkerOnlyApp.class.getName()));
        for (String property : TestServices.newDatabase().springProperties()) {
            command.add("--" + property);
        }
        command.add("--delay.mode=jdbc");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            await("the worker's main to return").atMost(90, TimeUnit.SECONDS)
                .pollInterval(200, TimeUnit.MILLISECONDS)
                .until(() -> output(log).contains("MAIN RETURNED") || !process.isAlive());
            await("the task due 3 s later to run").atMost(30, TimeUnit.SECONDS)
                .pollInterval(200, TimeUnit.MILLISECONDS)
                .until(() -> output(log).contains("RAN later") || !process.isAlive());
            assertThat(process.isAlive()).as("alive after main returned:%n%s", output(log)).isTrue();
            assertThat(output(log)).contains("RAN later");

            process.destroy(); // SIGTERM: Spring Boot's shutdown hook closes the context, the engine stops
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exits once stopped:%n%s", output(log)).isTrue();
            assertThat(output(log)).contains("Delay queue engine stopped:");
        }
        finally {
            process.destroyForcibly();
        }
    }

    private static String output(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }
}
