package io.github.delayqueue.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** This machine: the JVM's CPU time, how busy all cores were, the load average (Linux; neutral values elsewhere). */
final class Machine {

    private Machine() {
    }

    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    /** {busy, total} jiffies of all CPUs from /proc/stat; zeros where there is none. */
    static long[] ticks() {
        try {
            String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] parts = line.trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < parts.length; i++) {
                total += Long.parseLong(parts[i]);
            }
            long idle = Long.parseLong(parts[4]) + (parts.length > 5 ? Long.parseLong(parts[5]) : 0);
            return new long[] { total - idle, total };
        }
        catch (Exception ex) {
            return new long[] { 0, 0 };
        }
    }

    static double busyPercent(long[] before, long[] after) {
        long total = after[1] - before[1];
        return total <= 0 ? Double.NaN : 100.0 * (after[0] - before[0]) / total;
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return String.join(" ", Arrays.asList(parts).subList(0, 3));
        }
        catch (Exception ex) {
            return "?";
        }
    }
}
