package io.github.delayqueue.sample.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import redis.embedded.core.ExecutableProvider;

import org.springframework.util.FileSystemUtils;

/**
 * A Redis server run from the binary the embedded-redis jar ships, on a free loopback port, keeping nothing on disk.
 * The process is started here rather than through the jar's {@code RedisServer}, whose JVM shutdown hook stops Redis
 * while the application is still closing.
 */
final class EmbeddedRedis implements AutoCloseable {

    private static final long START_TIMEOUT_MILLIS = 30_000;

    private final Process process;

    private final Path directory;

    private final int port;

    private EmbeddedRedis(Process process, Path directory, int port) {
        this.process = process;
        this.directory = directory;
        this.port = port;
    }

    static EmbeddedRedis start() {
        Path directory = createTempDirectory();
        try {
            String executable = ExecutableProvider.newJarResourceProvider(directory.toFile()).get().getAbsolutePath();
            int port = FreePort.find();
            Path log = directory.resolve("redis.log");
            Process process = new ProcessBuilder(List.of(executable, "--bind", "127.0.0.1", "--port",
                    Integer.toString(port), "--save", "", "--appendonly", "no", "--dir", directory.toString()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
            EmbeddedRedis redis = new EmbeddedRedis(process, directory, port);
            redis.awaitListening(log);
            return redis;
        }
        catch (IOException | RuntimeException ex) {
            FileSystemUtils.deleteRecursively(directory.toFile());
            throw new IllegalStateException("Could not start the embedded Redis (" + ex.getMessage()
                    + "); set spring.data.redis.url to use a Redis of your own", ex);
        }
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        try {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        finally {
            FileSystemUtils.deleteRecursively(directory.toFile());
        }
    }

    private void awaitListening(Path log) throws IOException {
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited with " + process.exitValue() + ": " + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            }
            catch (IOException notYet) {
                sleep();
            }
        }
        process.destroyForcibly();
        throw new IOException("redis-server did not listen on port " + port + " within " + START_TIMEOUT_MILLIS
                + " ms: " + Files.readString(log));
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(50);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while waiting for redis-server", ex);
        }
    }

    private static Path createTempDirectory() {
        try {
            return Files.createTempDirectory("delay-sample-redis-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No temporary directory for the embedded Redis", ex);
        }
    }
}
