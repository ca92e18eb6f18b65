package io.github.delayqueue.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * CPU time of the database server, from {@code /proc/<pid>/stat} (utime + stime) of the local {@code mariadbd} or
 * {@code mysqld}. MariaDB and MySQL report no CPU time of their own in {@code SHOW GLOBAL STATUS}, so a server on
 * another machine is reported as unavailable rather than estimated.
 */
final class DatabaseCpu {

    private final Path stat;

    private final String source;

    private final double ticksPerSecond;

    private DatabaseCpu(Path stat, String source, double ticksPerSecond) {
        this.stat = stat;
        this.source = source;
        this.ticksPerSecond = ticksPerSecond;
    }

    static DatabaseCpu find(Servers servers) {
        if (!servers.databaseIsLocal()) {
            return new DatabaseCpu(null, "unavailable: the database server is not on this machine", 100);
        }
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                String command;
                try {
                    command = Files.readString(process.resolve("comm"), StandardCharsets.UTF_8).trim();
                }
                catch (IOException ex) {
                    continue; // gone, or not ours to read
                }
                if (command.equals("mariadbd") || command.equals("mysqld")) {
                    Path stat = process.resolve("stat");
                    if (Double.isNaN(read(stat, 1))) {
                        break;
                    }
                    return new DatabaseCpu(stat, "/proc/" + process.getFileName() + "/stat utime+stime (" + command
                            + ")", clockTicks());
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // no /proc: not Linux
        }
        return new DatabaseCpu(null, "unavailable: no readable mariadbd/mysqld process in /proc", 100);
    }

    String source() {
        return source;
    }

    /** CPU seconds the server used so far; NaN when unavailable. */
    double seconds() {
        return stat == null ? Double.NaN : read(stat, ticksPerSecond);
    }

    /** utime + stime (fields 14 and 15) in seconds; the command name may hold spaces, so count from its ')'. */
    static double parse(String stat, double ticksPerSecond) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // fields[0] is field 3 (state): utime is field 14, stime field 15
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / ticksPerSecond;
    }

    private static double read(Path stat, double ticksPerSecond) {
        try {
            return parse(Files.readString(stat, StandardCharsets.UTF_8), ticksPerSecond);
        }
        catch (IOException | RuntimeException ex) {
            return Double.NaN;
        }
    }

    /** USER_HZ, 100 on nearly every Linux; asked of getconf in case. */
    private static double clockTicks() {
        try {
            Process process = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (process.waitFor(5, TimeUnit.SECONDS) && process.exitValue() == 0) {
                return Double.parseDouble(output);
            }
        }
        catch (IOException | RuntimeException ex) {
            // no getconf
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }
}
