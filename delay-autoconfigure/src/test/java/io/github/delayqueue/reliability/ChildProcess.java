package io.github.delayqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/** A {@link ChildInstance} in a JVM of its own, which a test can kill, stop and continue with real signals. */
final class ChildProcess implements AutoCloseable {

    private final Process process;

    private final Path journal;

    private final Path log;

    private ChildProcess(Process process, Path journal, Path log) {
        this.process = process;
        this.journal = journal;
        this.log = log;
    }

    /** Starts a child with these Spring properties and waits until its engine runs. */
    static ChildProcess start(Path dir, String name, List<String> properties) throws IOException {
        return start(dir, name, ReliabilityApp.class, properties);
    }

    /** Starts a child of {@code application} with these Spring properties and waits until its engine runs. */
    static ChildProcess start(Path dir, String name, Class<?> application, List<String> properties)
            throws IOException {
        Path journal = dir.resolve(name + "-journal.txt");
        Path log = dir.resolve(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ChildInstance.class.getName());
        command.add(journal.toString());
        command.add(ChildInstance.APP + application.getName());
        command.addAll(properties);
        command.add("delay.instance-id=" + name);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ChildProcess child = new ChildProcess(process, journal, log);
        // generous: a JVM starting Spring on a 2-core machine busy with other builds can take over a minute
        await("the child instance " + name + " to start").atMost(3, TimeUnit.MINUTES)
            .pollInterval(200, TimeUnit.MILLISECONDS)
            .until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the child died at startup:\n" + Files.readString(log));
                }
                return Files.exists(log) && Files.readString(log).contains("READY");
            });
        return child;
    }

    Path journal() {
        return journal;
    }

    Path log() {
        return log;
    }

    /** The journal lines the child wrote so far. */
    List<String> journalLines() throws IOException {
        return Files.exists(journal) ? Files.readAllLines(journal) : List.of();
    }

    /** SIGKILL, and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the child did not die");
        }
    }

    /**
     * SIGTERM, as an orchestrator stops an instance in a rolling deploy: Spring's shutdown hook stops taking tasks,
     * hands back what never started and drains what runs; waits until the process has exited.
     */
    void terminate() throws IOException, InterruptedException {
        signal("TERM");
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the child did not stop within 60 s of SIGTERM");
        }
    }

    /** SIGSTOP: every thread of the child stops, as in a long GC pause or a paused VM. */
    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT. */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " failed");
        }
    }

    @Override
    public void close() {
        try {
            signal("CONT"); // a stopped process does not die of SIGKILL until it runs again on some systems
        }
        catch (IOException | InterruptedException | IllegalStateException ex) {
            // gone already
        }
        process.destroyForcibly();
    }
}
