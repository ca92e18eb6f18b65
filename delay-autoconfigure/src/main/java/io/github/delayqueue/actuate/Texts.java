package io.github.delayqueue.actuate;

import java.time.Duration;
import java.util.Locale;

/** Short text for durations and sizes in the endpoint's answers: {@code 15m}, {@code 1h30m}, {@code 12.3 MB}. */
final class Texts {

    private static final long[] UNIT_MILLIS = { 86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L };

    private static final String[] UNIT_NAMES = { "d", "h", "m", "s", "ms" };

    private Texts() {
    }

    /**
     * The duration in units from days to milliseconds, largest first: {@code 15m}, {@code 1h30m}; a whole number of
     * one unit is also what a {@code delay.*} duration property accepts.
     */
    static String duration(Duration duration) {
        long millis = duration.toMillis();
        if (millis == 0) {
            return "0s";
        }
        StringBuilder text = new StringBuilder(millis < 0 ? "-" : "");
        long rest = Math.abs(millis);
        for (int i = 0; i < UNIT_MILLIS.length && rest > 0; i++) {
            long units = rest / UNIT_MILLIS[i];
            if (units > 0) {
                text.append(units).append(UNIT_NAMES[i]);
                rest -= units * UNIT_MILLIS[i];
            }
        }
        return text.toString();
    }

    /** Bytes in decimal units with one decimal: {@code 950 B}, {@code 12.3 kB}, {@code 4.0 MB}. */
    static String bytes(long bytes) {
        if (bytes < 1000) {
            return bytes + " B";
        }
        String[] units = { "kB", "MB", "GB", "TB" };
        double value = bytes;
        int unit = -1;
        while (value >= 1000 && unit < units.length - 1) {
            value /= 1000;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** A count with thousands separators: {@code 1,234,567}. */
    static String count(long count) {
        return String.format(Locale.ROOT, "%,d", count);
    }
}
